import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './redis-server.js';

const run = promisify(execFile);

/** One node of a {@link TestCluster}. */
export interface ClusterNodeProcess {
  host: '127.0.0.1';
  port: number;
  /** The cluster bus port (`--cluster-port`), chosen free instead of port + 10000. */
  busPort: number;
  pid: number;
  dir: string;
}

/** A private Redis Cluster of primaries (no replicas) on loopback, tracked by pid. */
export interface TestCluster {
  nodes: ClusterNodeProcess[];
  /** Seed nodes for `new Cluster(...)`. */
  seeds: { host: string; port: number }[];
  /** `redis://127.0.0.1:<p1>,redis://127.0.0.1:<p2>,...`: askgate's `REDIS_URL` with `REDIS_CLUSTER=true`. */
  url: string;
  /** A fresh admin connection to one node (the caller quits it). */
  node(index: number): Redis;
  /** SIGKILLs one node by pid (a primary crash); the others keep running. */
  kill9(index: number): Promise<void>;
  /** SIGKILLs every node by pid and removes their dirs. */
  stop(): Promise<void>;
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Number of primaries (default 3; `redis-cli --cluster create` needs at least 3). */
  size?: number;
  /** Extra `redis-server` arguments for every node (e.g. `['--appendonly', 'yes']`). */
  extraArgs?: string[];
}

function launch(port: number, busPort: number, dir: string, extraArgs: string[]): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--hz',
    '100',
    '--appendonly',
    'no',
    '--maxmemory-policy',
    'noeviction',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    `nodes-${port}.conf`,
    '--cluster-port',
    String(busPort),
    '--cluster-node-timeout',
    '5000',
    '--cluster-announce-ip',
    '127.0.0.1',
    ...extraArgs,
  ];
  const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cluster node ${port} did not start: ${out}`)), 10_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cluster node ${port} exited with ${code}: ${out}`));
    });
  });
}

async function killAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Distinct free loopback ports (a freed port may be handed out twice, so ask until they differ). */
async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/**
 * Starts `size` `redis-server --cluster-enabled yes` children on free loopback ports, joins them
 * with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`, and waits until every
 * node reports `cluster_state:ok` and knows all its peers.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const size = options.size ?? 3;
  const ports = await distinctPorts(size * 2);
  const children: ChildProcess[] = [];
  const nodes: ClusterNodeProcess[] = [];
  try {
    for (let i = 0; i < size; i++) {
      const port = ports[i]!;
      const busPort = ports[size + i]!;
      const dir = mkdtempSync(join(tmpdir(), 'askgate-cluster-'));
      nodes.push({ host: '127.0.0.1', port, busPort, pid: -1, dir });
    }
    const started = await Promise.all(nodes.map((n) => launch(n.port, n.busPort, n.dir, options.extraArgs ?? [])));
    started.forEach((child, i) => {
      children.push(child);
      nodes[i]!.pid = child.pid!;
    });
    await run(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: 20_000 },
    );
    await waitUntilOk(nodes, size);
  } catch (error) {
    await killAll(children);
    for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
    throw error;
  }
  const seeds = nodes.map((n) => ({ host: n.host, port: n.port }));
  return {
    nodes,
    seeds,
    url: nodes.map((n) => `redis://127.0.0.1:${n.port}`).join(','),
    node: (index) => new Redis({ host: '127.0.0.1', port: nodes[index]!.port, maxRetriesPerRequest: 1 }),
    kill9: (index) => killAll([children[index]!]),
    async stop() {
      await killAll(children);
      for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
    },
  };
}

async function waitUntilOk(nodes: ClusterNodeProcess[], size: number): Promise<void> {
  const conns = nodes.map((n) => new Redis({ host: n.host, port: n.port, maxRetriesPerRequest: 1 }));
  try {
    const until = Date.now() + 15_000;
    for (;;) {
      const infos = await Promise.all(conns.map((c) => c.call('CLUSTER', 'INFO') as Promise<string>));
      const ok = infos.every(
        (info) =>
          info.includes('cluster_state:ok') &&
          info.includes(`cluster_known_nodes:${size}`) &&
          info.includes('cluster_slots_ok:16384'),
      );
      if (ok) return;
      if (Date.now() > until) throw new Error(`cluster did not become ready:\n${infos.join('\n---\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await Promise.all(conns.map((c) => c.quit().catch(() => c.disconnect())));
  }
}

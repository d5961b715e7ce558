import { afterAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { client } from '../helpers/http.js';
import { proxyClientV1, upstreamWithLog } from '../helpers/mcp-proxy.js';
import { writeSummary, type RowSummary } from './harness/world.js';

// M1: askgate killed (-9) and restarted under `askgate mcp-proxy` while its calls wait for approval.
// The proxy reaches askgate over HTTP only: it keeps polling the same ask through the restart, and
// the upstream (the fake, counting its calls in a file) runs a call at most once, and only after
// an approval. Kill points: before the decision, right after it (the proxy may not have read it
// yet), before a rejection, and across an approval's deadline.
const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN = 'mcp-proxy-restart-token-0123456789';

afterAll(() => writeSummary('mcp-proxy-restart', rows));

type Result = { isError?: boolean; structuredContent?: any };

describe('M1: kill -9 of askgate while mcp-proxy calls wait for approval (Redis AOF always)', () => {
  it('each call runs upstream at most once after its approval, never without one', async () => {
    const redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const port = await freePort();
    const env = {
      REDIS_URL: redis.url,
      PORT: String(port),
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_KEY_PREFIX: `m1${Date.now()}`,
      ASKGATE_TIMEOUT_MIN_SECONDS: '1',
      ASKGATE_RECONCILE_INTERVAL_MS: '200',
    };
    let askgate: AskgateProcess = await startAskgateProcess(env);
    const url = askgate.url;
    const api = client(url, TOKEN);
    const upstream = upstreamWithLog();
    const proxyEnv = { PATH: process.env.PATH ?? '', ASKGATE_URL: url, ASKGATE_API_TOKEN: TOKEN, LOG_LEVEL: 'error' };
    const proxy = (extra: string[]): Promise<Client> =>
      proxyClientV1(
        ['--upstream', upstream.command, '--approve', 'send_email', '--wait-seconds', '5', ...extra],
        proxyEnv,
      );
    const host = await proxy([]);
    const short = await proxy(['--timeout', '4']);
    const restarts: number[] = [];
    const restart = async (downMs: number) => {
      await askgate.kill9();
      await sleep(downMs);
      const started = Date.now();
      askgate = await startAskgateProcess(env);
      restarts.push(Date.now() - started);
    };
    /** The call, followed with await_approval until it ends (the host's side of a bounded wait). */
    const drive = async (mcp: Client, to: string): Promise<Result> => {
      let r = (await mcp.callTool({ name: 'send_email', arguments: { to, subject: 'm1' } })) as Result;
      while (r.structuredContent?.status === 'pending' && !r.isError)
        r = (await mcp.callTool({
          name: 'await_approval',
          arguments: { askId: r.structuredContent.askId },
        })) as Result;
      return r;
    };
    const askOf = async (to: string) => {
      for (let i = 0; i < 200; i++) {
        const asks = (await api.get('/v1/asks?limit=200').catch(() => ({ body: { asks: [] } }))).body.asks as any[];
        const found = asks.find((a) => a.approval?.arguments?.to === to);
        if (found) return found.id as string;
        await sleep(50);
      }
      throw new Error(`no ask for ${to}`);
    };
    const ranFor = (to: string) => upstream.calls().filter((c) => (c.args as { to?: string }).to === to).length;
    const violations: string[] = [];
    const outcomes: Record<string, number> = { approvedRanOnce: 0, refusedNotRun: 0, timedOutNotRun: 0 };
    try {
      const ROUNDS = 9;
      for (let i = 0; i < ROUNDS; i++) {
        const to = `m1-${i}@example.com`;
        const call = drive(host, to);
        const id = await askOf(to);
        const kind = (['before-approve', 'after-approve', 'before-reject'] as const)[i % 3];
        if (kind === 'before-approve') {
          await askgate.kill9();
          // The host re-sends the same call while askgate is down: joined, never a second ask.
          const resend = drive(host, to);
          await sleep(1_500);
          askgate = await startAskgateProcess(env);
          expect((await api.post(`/v1/asks/${id}/answer`, { decision: 'approve' })).status).toBe(200);
          await resend;
        } else if (kind === 'after-approve') {
          expect((await api.post(`/v1/asks/${id}/answer`, { decision: 'approve' })).status).toBe(200);
          await restart(1_000);
        } else {
          await restart(1_000);
          await api.post(`/v1/asks/${id}/answer`, { decision: 'reject', reason: 'not now' });
        }
        const result = await call;
        const ran = ranFor(to);
        const asks = (await api.get(`/v1/runs/${(await api.get(`/v1/asks/${id}`)).body.runId}`)).body
          .history as unknown[];
        if (asks.length !== 1) violations.push(`${to}: ${asks.length} asks for one call`);
        if (kind === 'before-reject') {
          if (ran !== 0) violations.push(`${to}: ran ${ran} times after a rejection`);
          else if (result.isError) outcomes.refusedNotRun!++;
        } else if (ran !== 1 || result.structuredContent?.sent !== true)
          violations.push(`${to}: approved, ran ${ran} times, result ${JSON.stringify(result)}`);
        else outcomes.approvedRanOnce!++;
      }
      // An approval whose deadline passes while askgate is down: nobody approved, nothing runs.
      const late = 'm1-late@example.com';
      const lateCall = drive(short, late);
      await askOf(late);
      await restart(6_000);
      const lateResult = await lateCall;
      if (ranFor(late) !== 0 || !lateResult.isError) violations.push(`${late}: ran or not refused after its timeout`);
      else outcomes.timedOutNotRun!++;
      rows.push({
        row: 'M1',
        title: 'askgate killed and restarted while mcp-proxy calls wait for approval',
        platform: 'none (API answers)',
        injected: `kill -9 of askgate, ${restarts.length + 3} times (before the decision, right after it, before a rejection, across a deadline)`,
        figures: { ...outcomes, upstreamCalls: upstream.calls().length, restartMsMax: Math.max(...restarts) },
        violations,
      });
      expect(violations).toEqual([]);
      expect(outcomes).toEqual({ approvedRanOnce: 6, refusedNotRun: 3, timedOutNotRun: 1 });
    } finally {
      await host.close().catch(() => undefined);
      await short.close().catch(() => undefined);
      await askgate.stop();
      await redis.dispose();
    }
  });
});

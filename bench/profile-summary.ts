/**
 * Summarises a V8 CPU profile (node --cpu-prof): self time by function and by package.
 * Usage: tsx bench/profile-summary.ts <file.cpuprofile> [top=30]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface ProfileSummary {
  /** CPU time sampled, idle excluded (ms); shares below are of this. */
  busyMs: number;
  byFunction: { name: string; ms: number; share: number }[];
  byPackage: { name: string; ms: number; share: number }[];
  /** Inclusive (self + callees) time of askgate's own functions. */
  inclusive: { name: string; ms: number; share: number }[];
}

function packageOf(url: string): string {
  if (!url) return '(native/idle/gc)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 13).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const src = url.indexOf('/src/');
  if (src >= 0)
    return (
      'askgate ' +
      url
        .slice(src + 1)
        .split('/')
        .slice(0, 2)
        .join('/')
    );
  return url.split('/').slice(-2).join('/');
}

export function summarizeProfile(path: string, top = 30): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    endTime: number;
    samples: number[];
  };
  const allHits = profile.nodes.reduce((a, n) => a + (n.hitCount ?? 0), 0);
  const perHit = (profile.endTime - profile.startTime) / 1000 / Math.max(1, allHits);
  const label = (n: ProfileNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    return `${functionName || '(anonymous)'} ${
      url
        ? `${url
            .replace(/^.*node_modules\//, '')
            .replace(/^.*\/main\//, '')
            .replace(/^file:\/\//, '')}:${lineNumber + 1}`
        : ''
    }`.trim();
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busyHits = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    if (!hits || n.callFrame.functionName === '(idle)') continue;
    busyHits += hits;
    fn.set(label(n), (fn.get(label(n)) ?? 0) + hits);
    const p = packageOf(n.callFrame.url);
    pkg.set(p, (pkg.get(p) ?? 0) + hits);
  }
  // Inclusive time of askgate functions: each sample counts once per distinct askgate frame on its stack.
  const inclusive = new Map<string, number>();
  const walk = (n: ProfileNode, onStack: Set<string>) => {
    const own = /\/src\//.test(n.callFrame.url) ? label(n) : null;
    const added = own !== null && !onStack.has(own);
    if (added) onStack.add(own!);
    const hits = n.callFrame.functionName === '(idle)' ? 0 : (n.hitCount ?? 0);
    if (hits) for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + hits);
    for (const c of n.children ?? []) walk(byId.get(c)!, onStack);
    if (added) onStack.delete(own!);
  };
  walk(profile.nodes[0]!, new Set());
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => ({
        name,
        ms: Math.round(hits * perHit),
        share: Math.round((hits / Math.max(1, busyHits)) * 1000) / 10,
      }));
  return {
    busyMs: Math.round(busyHits * perHit),
    byFunction: rows(fn),
    byPackage: rows(pkg),
    inclusive: rows(inclusive),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = summarizeProfile(process.argv[2]!, Number(process.argv[3] ?? 30));
  console.log(`busy ${s.busyMs} ms (shares are of busy time)`);
  console.log('\nby package:');
  for (const r of s.byPackage) console.log(`${String(r.share).padStart(5)} %  ${r.name}`);
  console.log('\nby function (self):');
  for (const r of s.byFunction) console.log(`${String(r.share).padStart(5)} %  ${r.name}`);
  console.log('\ninclusive, askgate functions:');
  for (const r of s.inclusive) console.log(`${String(r.share).padStart(5)} %  ${r.name}`);
}

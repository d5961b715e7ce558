/**
 * Summarises a V8 sampling heap profile (bench/askgate-child.ts with BENCH_HEAP_SAMPLE_DIR): bytes
 * allocated by function (self) and by package, freed objects included.
 * Usage: tsx bench/heap-summary.ts <file.heapprofile> [top=30]
 */
import { readFileSync } from 'node:fs';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: tsx bench/heap-summary.ts <file.heapprofile> [top=30]');
const top = Number(process.argv[3] ?? 30);
const root = (JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head;
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;

function where(frame: HeapNode['callFrame']): { fn: string; pkg: string } {
  const url = frame.url.replace(/^file:\/\//, '');
  const nm = url.lastIndexOf('node_modules/');
  const pkg =
    nm >= 0
      ? url
          .slice(nm + 13)
          .split('/')
          .slice(0, url.slice(nm + 13).startsWith('@') ? 2 : 1)
          .join('/')
      : url.includes('/src/')
        ? 'askgate'
        : url || '(native)';
  const short = url.includes('/src/') ? url.slice(url.indexOf('/src/') + 1) : url.split('/').slice(-2).join('/');
  return { fn: `${frame.functionName || '(anonymous)'} ${short}:${frame.lineNumber + 1}`, pkg };
}

function walk(node: HeapNode, stack: string[]): number {
  const { fn, pkg } = where(node.callFrame);
  let sum = node.selfSize;
  total += node.selfSize;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.selfSize);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.selfSize);
  const inner = stack.includes(fn) ? stack : [...stack, fn];
  for (const child of node.children) sum += walk(child, inner);
  if (!stack.includes(fn) && fn.includes(' src/')) inclusive.set(fn, (inclusive.get(fn) ?? 0) + sum);
  return sum;
}
walk(root, []);

const table = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, bytes]) => ({
      name: name.slice(0, 110),
      MB: +(bytes / 2 ** 20).toFixed(2),
      share: +((100 * bytes) / total).toFixed(1),
    }));
console.log(`allocated (sampled) ${(total / 2 ** 20).toFixed(1)} MB`);
console.table(table(byPackage));
console.table(table(byFunction));
console.log('askgate functions, inclusive:');
console.table(table(inclusive));

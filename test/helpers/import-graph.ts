import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Which imports an edge stands for: every one (type-only too), only those that load a module when
 * run, or only those that load it with the importing file (`static`: runtime without `import()`).
 */
export type ImportKind = 'all' | 'runtime' | 'static';

// `import … from`, `export … from` (re-exports), with or without `type`; the clause holds only names, braces, `*`, commas.
const FROM = /^[ \t]*(?:import|export)\s+(type\s+)?([\w$*{},\s]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const BARE = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** True for a clause naming only types (`{ type A, type B }`): TypeScript drops such a statement when it compiles. */
function onlyTypes(clause: string): boolean {
  const names = /^\{([^}]*)\}$/.exec(clause.trim())?.[1];
  if (names === undefined) return false;
  const list = names
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return list.length > 0 && list.every((n) => n.startsWith('type '));
}

/** The `.ts` file a relative specifier names (`./x.js` -> `x.ts`, `./dir` -> `dir/index.ts`), or null. */
function resolveTs(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
  for (const path of [base, base.replace(/\.ts$/, ''), base.replace(/\.ts$/, '/index.ts')])
    if (path.endsWith('.ts') && existsSync(path)) return path;
  return null;
}

/** The `.ts` files `file` imports by relative path (kind `runtime`: leaving out imports that only bring in types). */
export function importsOf(file: string, kind: ImportKind): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...[...text.matchAll(FROM)].filter((m) => kind === 'all' || (!m[1] && !onlyTypes(m[2]!))).map((m) => m[3]!),
    ...[...text.matchAll(BARE), ...(kind === 'static' ? [] : text.matchAll(DYNAMIC))].map((m) => m[1]!),
  ];
  const files = specs.filter((s) => s.startsWith('.')).map((s) => resolveTs(file, s));
  return [...new Set(files.filter((f): f is string => f !== null))];
}

/** Every `.ts` file under `dir`. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The files loading `entry` reads, itself included: its imports of `kind`, transitively, sorted. */
export function importClosure(entry: string, kind: ImportKind): string[] {
  const seen = new Set([resolve(entry)]);
  const queue = [...seen];
  for (let file = queue.pop(); file !== undefined; file = queue.pop())
    for (const next of importsOf(file, kind))
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
  return [...seen].sort();
}

/** The import graph of the `.ts` files under `dir` (edges to files outside it left out). */
export function importGraph(dir: string, kind: ImportKind): Map<string, string[]> {
  const files = sourceFiles(resolve(dir));
  const inside = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, kind).filter((t) => inside.has(t))]));
}

/** The strongly connected components of `graph` that hold a cycle (two files or more, or a file importing itself). */
export function cyclicGroups(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1 || graph.get(v)?.includes(v)) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups;
}

/** One shortest loop through the first file of `group` (a cyclic group of `graph`), ending where it starts. */
export function loopThrough(graph: ReadonlyMap<string, readonly string[]>, group: readonly string[]): string[] {
  const start = group[0]!;
  const inside = new Set(group);
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let v = queue.shift(); v !== undefined; v = queue.shift())
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const loop = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) loop.unshift(at);
        return [start, ...loop];
      }
      if (inside.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  return [start];
}

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cyclicGroups, importGraph, loopThrough } from '../helpers/import-graph.js';

const CORE = resolve(import.meta.dirname, '../../src/core');

/** Each cycle of the graph of `dir` as one line: a shortest loop, then every file of its group. */
function cyclesIn(dir: string): string[] {
  const graph = importGraph(dir, 'all');
  const name = (f: string) => relative(dir, f);
  return cyclicGroups(graph).map(
    (group) =>
      `${loopThrough(graph, group).map(name).join(' -> ')} (${group.length} files: ${group.map(name).join(' ')})`,
  );
}

describe('core imports form no cycle', () => {
  const fixture = mkdtempSync(join(tmpdir(), 'askgate-cycles-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('counts type-only imports and re-exports as edges, and names the loop', () => {
    const dir = join(fixture, 'typed');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b: B }\n");
    writeFileSync(join(dir, 'b.ts'), "export * from './sub/c.js';\nexport interface B { n: number }\n");
    writeFileSync(join(dir, 'sub/c.ts'), "import {\n  type A,\n} from '../a.js';\nexport type C = A;\n");
    writeFileSync(join(dir, 'leaf.ts'), "import { x } from './a.js';\n// import { y } from './leaf.js';\n");
    expect(cyclesIn(dir)).toEqual(['a.ts -> b.ts -> sub/c.ts -> a.ts (3 files: a.ts b.ts sub/c.ts)']);
  });

  it('finds nothing in a graph without a loop', () => {
    const dir = join(fixture, 'tree');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.ts'), "import { b } from './b.js';\nexport { c } from './c.js';\n");
    writeFileSync(join(dir, 'b.ts'), "import type { C } from './c.js';\nexport const b = 1;\n");
    writeFileSync(join(dir, 'c.ts'), 'export const c = 1;\nexport type C = number;\n');
    expect(cyclesIn(dir)).toEqual([]);
  });

  it('reads the imports of src/core', () => {
    const graph = importGraph(CORE, 'all');
    expect(graph.size).toBeGreaterThan(30);
    expect(graph.get(join(CORE, 'lifecycle.ts'))).toContain(join(CORE, 'ask-ending.ts'));
  });

  it('no file in src/core takes part in an import cycle (type imports and re-exports included)', () => {
    expect(cyclesIn(CORE)).toEqual([]);
  });
});

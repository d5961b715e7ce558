import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The framework adapters stay out of the server: nothing the server or the CLI loads reaches
// src/adapters or a framework package (they are optional peer dependencies).

const SRC = resolve(import.meta.dirname, '../../src');
const FRAMEWORKS = /^(@openai\/agents|@langchain\/|@ag-ui\/)/;
/** Runtime imports (not `import type`, not `export type`). */
const runtimeImports = (text: string) =>
  [
    ...text.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
    ),
  ].map((m) => (m[1] ?? m[2])!);

function graph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (existsSync(target)) visit(target);
    }
  };
  visit(resolve(SRC, entry));
  return { files, packages };
}

describe('adapter boundaries', () => {
  it.each(['main.ts', 'cli.ts', 'client/index.ts'])('%s never loads src/adapters or a framework', (entry) => {
    const { files, packages } = graph(entry);
    expect(files.size).toBeGreaterThan(entry === 'client/index.ts' ? 3 : 20);
    expect([...files].map((f) => relative(SRC, f)).filter((f) => f.startsWith('adapters/'))).toEqual([]);
    expect([...packages].filter((p) => FRAMEWORKS.test(p))).toEqual([]);
  });

  it('each adapter loads only its own framework; the AG-UI one only its types', () => {
    const frameworks = (entry: string) => [...graph(entry).packages].filter((p) => FRAMEWORKS.test(p));
    expect(frameworks('adapters/openai-agents.ts')).toEqual(['@openai/agents']);
    expect(frameworks('adapters/langgraph.ts')).toEqual(['@langchain/langgraph']);
    expect(frameworks('adapters/ag-ui.ts')).toEqual([]);
    // And none reaches the server: only the SDK and pure core (and the approval hash the SDK's
    // assertApproved shares with the server: node:crypto and canonicalize, nothing else).
    for (const entry of ['adapters/openai-agents.ts', 'adapters/langgraph.ts', 'adapters/ag-ui.ts'])
      expect(
        [...graph(entry).files]
          .map((f) => relative(SRC, f))
          .filter((f) => !/^(adapters|client|core)\//.test(f) && f !== 'app/action-hash.ts'),
      ).toEqual([]);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// askgate/guard/<framework> holds each adapter and the frameworks are optional peers: the
// adapters wrap tools by their shapes and take only types from the frameworks, so loading one
// loads no package at all (a framework a project does not use need not be installed).

const SRC = resolve(import.meta.dirname, '../../src');
/** Runtime imports (not `import type`, not `export type`). */
const runtimeImports = (text: string) =>
  [
    ...text.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm,
    ),
  ].map((m) => (m[1] ?? m[2])!);

function graph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) packages.add(spec);
      else {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (existsSync(target)) visit(target);
      }
    }
  };
  visit(resolve(SRC, entry));
  return { files: [...files].map((f) => relative(SRC, f)), packages: [...packages] };
}

describe('guard adapters', () => {
  it.each(['guard/openai-agents.ts', 'guard/langgraph.ts', 'guard/ai-sdk.ts'])(
    '%s loads no package and nothing outside src/guard at runtime',
    (entry) => {
      const { files, packages } = graph(entry);
      expect(packages).toEqual([]);
      expect(files.filter((f) => !f.startsWith('guard/'))).toEqual([]);
      expect(files).toContain('guard/wrap.ts');
    },
  );

  it('the scan sees type-only imports as such (it would catch a runtime one)', () => {
    expect(runtimeImports("import type { Tool } from 'ai';\nimport { x } from 'ai';")).toEqual(['ai']);
  });
});

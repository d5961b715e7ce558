import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASSETS, joinModules, SCRIPT_MODULES } from '../../src/console/assets.js';

const STATIC = new URL('../../src/console/static/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, STATIC), 'utf8');
const join = (modules: Record<string, string>) => joinModules(Object.keys(modules), (file) => modules[file]!);

describe('the console script, joined from its browser modules', () => {
  it('is what the page loads: every module, in order, without imports, exports or comments', () => {
    const js = ASSETS.js.body.toString('utf8');
    expect(js).toBe(joinModules(SCRIPT_MODULES, source));
    expect(js).not.toMatch(/^\s*(import|export)\b|^\s*\/\/|\/\*\*/m);
    expect(js.indexOf('function el(')).toBeLessThan(js.indexOf('function showPending('));
    expect(js.trimEnd().endsWith('checkSession();')).toBe(true); // app.js, the start-up, runs last
  });

  it('lists every browser module in static/, each importing only its siblings and no Node API', () => {
    expect(
      readdirSync(STATIC)
        .filter((f) => f.endsWith('.js'))
        .sort(),
    ).toEqual([...SCRIPT_MODULES].sort());
    for (const file of SCRIPT_MODULES) {
      const text = source(file);
      const specs = [...text.matchAll(/^import[^;]*from '([^']+)';$/gm)].map((m) => m[1]);
      expect([file, specs.filter((s) => !SCRIPT_MODULES.includes(s!.slice(2) as never))]).toEqual([file, []]);
      expect([file, /\b(process|Buffer|require|__dirname)\b/.exec(text)?.[0] ?? null]).toEqual([file, null]);
      expect([file, text.split('\n').length <= 330]).toEqual([file, true]);
    }
  });

  it('keeps code and strings, drops doc blocks, comment lines and inline type casts', () => {
    const js = join({
      'a.js':
        "import { b } from './b.js';\n/** Doc\n * more */\nexport const a = () => /** @type {string} */ (b) + '// not a comment';\n",
      'b.js': "// note\n  /** @type {string} */\nexport const b = 'x'; /* kept */\n",
    });
    expect(js).toBe("const a = () => (b) + '// not a comment';\n\nconst b = 'x'; /* kept */\n");
  });

  it('refuses at startup what would not survive the join', () => {
    expect(() => join({ 'a.js': "import { x } from './x.js';\n" })).toThrow(/imports x\.js/);
    expect(() => join({ 'a.js': "import { readFile } from 'node:fs';\n" })).toThrow(/cannot join/);
    expect(() => join({ 'a.js': 'export default 1;\n' })).toThrow(/cannot join/);
    expect(() => join({ 'a.js': 'const s = `\n// x`;\n' })).toThrow(/template literals/);
    expect(() => join({ 'a.js': 'export function f() {}\n', 'b.js': 'const f = 1;\n' })).toThrow(
      /"f" is declared by another module/,
    );
  });
});

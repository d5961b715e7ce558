import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ASSETS, CATALOGUES, i18nScript, joinModules, pageFor, SCRIPT_MODULES } from '../../src/console/assets.js';
import { CONSOLE_LOCALES } from '../../src/console/i18n/index.js';

const STATIC = new URL('../../src/console/static/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, STATIC), 'utf8');
const join = (modules: Record<string, string>) => joinModules(Object.keys(modules), (file) => modules[file]!);

describe('the console script, joined from its browser modules', () => {
  it('is what the page loads: every module, in order, without imports, exports or comments', () => {
    const js = ASSETS.js.body.toString('utf8');
    // The console's words (console/i18n) come first, as one constant.
    expect(js).toBe(i18nScript() + joinModules(SCRIPT_MODULES, source));
    expect(i18nScript()).toMatch(/^const ASKGATE_I18N = \{"names":\{"en":"English",[^{}]*\}\};\n$/);
    expect(js).not.toMatch(/^\s*(import|export)\b|^\s*\/\/|\/\*\*/m);
    expect(js.indexOf('function el(')).toBeLessThan(js.indexOf('function showPending('));
    // app.js, the start-up, runs last: once the page's words are loaded.
    expect(
      js
        .trimEnd()
        .endsWith('loadWords().then(() => {\n  translatePage();\n  setInterval(tick, 15000);\n  checkSession();\n});'),
    ).toBe(true);
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

describe('the console page in the browser language', () => {
  const langOf = (header: string | undefined) => /<html lang="([^"]+)">/.exec(pageFor(header).body.toString())?.[1];

  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['pt-BR,pt;q=0.9,en;q=0.8', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['de-CH, en;q=0.5', 'de'],
    ['ko, ja;q=0.7, en;q=0.5', 'ja'],
    ['en;q=0.4, fr;q=0.9', 'fr'],
    ['fr;q=0, es', 'es'],
    ['*', 'en'],
    ['x'.repeat(5000), 'en'],
    ['zz-!!, <script>', 'en'],
  ])('Accept-Language %j -> %s', (header, lang) => {
    expect(langOf(header)).toBe(lang);
  });

  it("serves each language's words as JSON, the same as console/i18n", () => {
    expect([...CATALOGUES.keys()]).toEqual([...CONSOLE_LOCALES.keys()]);
    for (const [tag, file] of CATALOGUES) expect(JSON.parse(file.body.toString())).toEqual(CONSOLE_LOCALES.get(tag));
  });

  it('is written in that language, each with its own ETag', () => {
    const de = pageFor('de').body.toString();
    expect(de).toContain('<title>askgate-Konsole</title>');
    expect(de).toContain('data-i18n="signIn">Anmelden<');
    expect(de).toContain('(<code>ASKGATE_API_TOKEN</code>)');
    expect(de).not.toMatch(/>Sign in</);
    expect(pageFor('de').etag).not.toBe(ASSETS.html.etag);
  });
});

import { readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importClosure, sourceFiles } from '../helpers/import-graph.js';

const SRC = resolve(import.meta.dirname, '../../src');
const CORE = resolve(SRC, 'core');
const name = (file: string) => relative(SRC, file);

/** True for a file that holds or gathers the web console's words: a console catalogue, its type or its list. */
const holdsConsoleWords = (file: string) =>
  basename(file).startsWith('console-') ||
  /\bCONSOLE_[A-Z]+\b|\bConsole(?:Messages|Key)\b/.test(readFileSync(file, 'utf8'));

describe("the console's words live with the console, not in core", () => {
  it('recognises the console catalogues where they live', () => {
    const console = importClosure(resolve(SRC, 'console/assets.ts'), 'all').filter(holdsConsoleWords).map(name);
    expect(console).toContain('console/i18n/index.ts');
    expect(console).toContain('console/i18n/en.ts');
    expect(console).toContain('console/i18n/ja.ts');
  });

  it('no file under src/core/i18n is console-specific', () => {
    expect(sourceFiles(resolve(CORE, 'i18n')).filter(holdsConsoleWords).map(name)).toEqual([]);
  });

  it('core/i18n/index.ts loads no console catalogue (type imports and re-exports included)', () => {
    expect(importClosure(resolve(CORE, 'i18n/index.ts'), 'all').filter(holdsConsoleWords).map(name)).toEqual([]);
  });

  it('nothing under src/core imports console words, directly or through another file', () => {
    const reached = new Set(sourceFiles(CORE).flatMap((file) => importClosure(file, 'all')));
    expect([...reached].filter((f) => holdsConsoleWords(f) || !f.startsWith(`${CORE}/`)).map(name)).toEqual([]);
  });
});

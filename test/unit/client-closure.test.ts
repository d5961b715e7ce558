import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importClosure } from '../helpers/import-graph.js';

const SRC = resolve(import.meta.dirname, '../../src');

/** The source files (relative to src/) a runtime import of `entry` loads: type-only imports vanish when compiled. */
const loads = (entry: string) => importClosure(resolve(SRC, entry), 'runtime').map((f) => relative(SRC, f));

describe('what the SDK (askgate/client) loads', () => {
  it('follows runtime imports only: the views load the catalogues, their type-only users do not', () => {
    expect(loads('core/prompt-view.ts')).toContain('core/i18n/en.ts');
    // channel-ports.ts imports the view types only.
    expect(loads('core/channel-ports.ts').filter((f) => f.startsWith('core/i18n/'))).toEqual([]);
  });

  it('loads the schemas it exposes and no i18n catalogue', () => {
    const files = loads('client/index.ts');
    expect(files).toContain('core/request-schemas.ts');
    expect(files).toContain('core/record-schemas.ts');
    expect(files.filter((f) => f.startsWith('core/i18n/'))).toEqual([]);
  });
});

#!/usr/bin/env node
// The `askgate` command, however it is invoked (npx, a global install, a node_modules/.bin symlink).
// A checkout runs its TypeScript source through tsx, so it never runs a stale build; an installed
// package (no tsconfig.json: `files` does not ship it) runs the compiled dist/ that `prepack` built.
import { existsSync } from 'node:fs';

const at = (path) => new URL(path, import.meta.url);
const checkout = existsSync(at('../tsconfig.json')) && existsSync(at('../src/cli.ts'));
let cli;
if (checkout || !existsSync(at('../dist/cli.js'))) {
  const { tsImport } = await import('tsx/esm/api');
  cli = await tsImport(at('../src/cli.ts').href, import.meta.url);
} else {
  cli = await import(at('../dist/cli.js').href);
}
await cli.main(process.argv.slice(2));

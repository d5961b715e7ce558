import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The checkout's root folder. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** README.md as it is in the checkout. */
export const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced code blocks of the README section that starts with `heading` (up to the next `## `). */
export function readmeBlocks(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`README has no section ${JSON.stringify(heading)}`);
  const end = README.indexOf('\n## ', start + heading.length + 2);
  const section = README.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Shell commands of a block: `\` continuations joined, blank lines dropped (comments stay: bash ignores them). */
export const shellCommands = (block: string) => block.split(/(?<!\\)\n/).filter((l) => l.trim() !== '');

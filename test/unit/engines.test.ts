import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README promises Node 22.12+ (24 recommended; 26 too): every package `npm ci` installs must accept each floor.
const ROOT = resolve(import.meta.dirname, '../..');
const semver = createRequire(join(ROOT, 'package.json'))('semver') as {
  satisfies(version: string, range: string): boolean;
};
const FLOORS = ['22.12.0', '24.0.0', '26.0.0'];

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

describe('Node engines', () => {
  it('package.json engines starts exactly at the floors the README names', () => {
    for (const floor of FLOORS) expect(semver.satisfies(floor, pkg.engines.node), floor).toBe(true);
    expect(semver.satisfies('20.19.0', pkg.engines.node)).toBe(false); // end of life in April 2026
    expect(semver.satisfies('22.11.0', pkg.engines.node)).toBe(false);
    expect(semver.satisfies('23.5.0', pkg.engines.node)).toBe(false); // vitest 5 does not support 23 or 25
    expect(semver.satisfies('25.1.0', pkg.engines.node)).toBe(false);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('Node 22.12+ (24 recommended)');
  });

  it('every locked package that installs on this platform accepts Node at each floor (no EBADENGINE on npm ci)', () => {
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      if (!path || !range) continue;
      // Platform-specific optional builds (wasm, other CPUs) are skipped by npm where they do not apply.
      const foreign =
        (entry.os && !entry.os.includes(process.platform)) || (entry.cpu && !entry.cpu.includes(process.arch));
      if (entry.optional && (foreign || !existsSync(join(ROOT, path)))) continue;
      for (const floor of FLOORS)
        if (!semver.satisfies(floor, range))
          refused.push(`${path}@${entry.version} wants node ${range} (not ${floor})`);
    }
    expect(refused).toEqual([]);
  });
});

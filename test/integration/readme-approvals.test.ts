import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { README, ROOT } from '../helpers/readme.js';

// The README's "Approvals" block, run as written in bash against a running askgate with a token.
const TOKEN = 'readme-approvals-token-0123456789';
const exec = promisify(execFile);

let app: RunningAskgate;
beforeAll(async () => {
  app = await startTestApp(testEnv({ ASKGATE_API_TOKEN: TOKEN }));
});
afterAll(async () => {
  await app?.close();
});

describe('README: Approvals', () => {
  it('the block runs as written: the hash printed, an edit refused by the schema, then one taken', async () => {
    const heading = '\n### Approvals\n';
    const start = README.indexOf(heading);
    expect(start).toBeGreaterThan(-1);
    const end = README.indexOf('\n### ', start + heading.length);
    const blocks = [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    const { stdout } = await exec('bash', ['-e', '-o', 'pipefail', '-c', blocks[0]!], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ASKGATE_URL: app.url, ASKGATE_API_TOKEN: TOKEN },
      timeout: 60_000,
    });
    const action = { action: 'send_email', arguments: { to: 'finance@example.com', subject: 'Q3 report' } };
    const hash = `sha256:${createHash('sha256').update(canonicalize(action)!).digest('hex')}`;
    expect(stdout.trim().split('\n')).toEqual([
      hash,
      "does not match the schema: must have required property 'subject'",
      '{"decision":"edit","arguments":{"to":"cfo@example.com","subject":"Q3 report"},"same":false}',
    ]);
  }, 90_000);
});

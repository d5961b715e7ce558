import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askBodyFromArgs, UsageError } from '../../src/cli-ask.js';
import { AskRequestSchema } from '../../src/core/schemas.js';

// `askgate ask` with an approval (issue 36) instead of questions: the action, its arguments as a JSON
// object, a summary, a preview read from a file, the decisions offered, a schema for edits and the
// decision a timeout states; the server's request schema accepts the body.
const run = ['--run', 'cli-approval'];
const body = (...argv: string[]) => askBodyFromArgs([...run, ...argv]).body;
const usage = (...argv: string[]) => {
  try {
    body(...argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error('no usage error');
};

describe('askgate ask: approval flags', () => {
  it('builds the approval the API takes, the preview read from its file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'askgate-cli-approval-'));
    const preview = join(dir, 'change.diff');
    writeFileSync(preview, '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-10\n+12\n');
    const sent = body(
      '--approval-action',
      'send_email',
      '--approval-arguments',
      '{"to": "finance@example.com", "attach": ["q3.pdf"]}',
      '--approval-summary',
      'Send the Q3 report to finance',
      '--approval-preview-file',
      preview,
      '--decision',
      'approve',
      '--decision',
      'reject',
      '--decision',
      'edit',
      '--approval-schema',
      '{"type": "object", "required": ["to"]}',
      '--timeout-decision',
      'reject',
      '--to',
      'test:chat-1',
    );
    expect(sent).toEqual({
      runId: 'cli-approval',
      to: { channel: 'test', chat: 'chat-1' },
      approval: {
        action: 'send_email',
        arguments: { to: 'finance@example.com', attach: ['q3.pdf'] },
        summary: 'Send the Q3 report to finance',
        preview: '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-10\n+12\n',
        decisions: ['approve', 'reject', 'edit'],
        argumentsSchema: { type: 'object', required: ['to'] },
      },
      onTimeout: { decision: 'reject' },
    });
    expect(AskRequestSchema.safeParse(sent).success).toBe(true);
  });

  it('the minimum is an action and its arguments; the defaults are the server’s', () => {
    expect(body('--approval-action', 'deploy', '--approval-arguments', '{}')).toEqual({
      runId: 'cli-approval',
      approval: { action: 'deploy', arguments: {} },
    });
  });

  it('--requested-by names the person who asked for the action (their own decision is refused)', () => {
    expect(
      body('--approval-action', 'deploy', '--approval-arguments', '{}', '--requested-by', 'slack:U1:x').approval,
    ).toEqual({ action: 'deploy', arguments: {}, requestedBy: { channel: 'slack', userId: 'U1:x' } });
  });

  it.each([
    [
      ['--approval-action', 'a', '--approval-arguments', '{}', '--requested-by', 'U1'],
      '--requested-by must be <channel>:<userId>, not "U1"',
    ],
    [['--approval-action', 'deploy'], '--approval-action needs --approval-arguments (a JSON object)'],
    [['--decision', 'approve'], '--decision goes with --approval-action'],
    [
      ['--approval-action', 'a', '--approval-arguments', '[1]'],
      '--approval-arguments must be a JSON object, not "[1]"',
    ],
    [['--approval-action', 'a', '--approval-arguments', '{x'], '--approval-arguments must be a JSON object, not "{x"'],
    [
      ['--approval-action', 'a', '--approval-arguments', '{}', '--question', 'Q?', '--option', 'A', '--option', 'B'],
      'give --question or --approval-action, not both',
    ],
    [
      ['--approval-action', 'a', '--approval-arguments', '{}', '--timeout-decision', 'maybe'],
      '--timeout-decision must be approve or reject, not "maybe"',
    ],
    [
      ['--approval-action', 'a', '--approval-arguments', '{}', '--default', 'q1=A'],
      '--default goes with questions (use --timeout-decision)',
    ],
    [
      ['--approval-action', 'a', '--approval-action', 'b', '--approval-arguments', '{}'],
      '--approval-action is given more than once',
    ],
  ])('%j is a usage error', (argv, message) => {
    expect(usage(...argv)).toBe(message);
  });

  it('an unreadable preview file is a usage error naming the flag', () => {
    expect(
      usage('--approval-action', 'a', '--approval-arguments', '{}', '--approval-preview-file', '/nonexistent/x.diff'),
    ).toMatch(/^--approval-preview-file: cannot read "\/nonexistent\/x\.diff"/);
  });
});

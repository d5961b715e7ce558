// Approvals through the SDK against a real askgate on Redis: `ask({approval})` waits for the decision,
// `answer(id, {decision, ...})` decides, and `assertApproved` releases only the action a person
// released, with the exact arguments they saw (or edited).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import {
  ApprovalError,
  ApprovalRequestSchema,
  AskgateClient,
  DECISIONS,
  actionHash,
  assertApproved,
  type ApprovalInput,
  type AskResult,
  type AskView,
} from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let app: RunningAskgate;
let sdk: AskgateClient;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }));
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await app?.close();
  await redis?.dispose();
});

const email = {
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report', attach: ['q3.pdf'] },
  summary: 'Send the Q3 report to finance',
  decisions: ['approve', 'reject', 'request_changes', 'edit'],
  argumentsSchema: { type: 'object', required: ['to', 'subject'] },
} satisfies ApprovalInput;

/** Asks for the approval, decides it through `answer()` once it exists, and returns the result. */
async function decided(decision: Parameters<AskgateClient['answer']>[1]): Promise<AskResult> {
  let created!: (ask: AskView) => void;
  const ask = new Promise<AskView>((resolve) => (created = resolve));
  const result = sdk.ask({ runId: `sdk-approval-${++run}`, approval: email }, { onCreated: created, waitSeconds: 1 });
  const view = await sdk.answer((await ask).id, decision);
  expect(view.status).toBe('answered');
  return result;
}

const refusal = (run: () => unknown): ApprovalError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApprovalError) return error;
    throw error;
  }
  throw new Error('assertApproved did not throw');
};

describe('approvals through the SDK', () => {
  it('approve: assertApproved returns the arguments to run when they are the ones approved', async () => {
    const result = await decided({ decision: 'approve', by: 'alice' });
    expect(result).toMatchObject({
      status: 'answered',
      decision: 'approve',
      arguments: email.arguments,
      actionHash: actionHash(email.action, email.arguments),
      effectiveHash: actionHash(email.action, email.arguments),
      answeredBy: { channel: 'api', userId: 'alice' },
    });
    // Key order is irrelevant: the hash is over RFC 8785 canonical JSON.
    const reordered = { attach: ['q3.pdf'], subject: 'Q3 report', to: 'finance@example.com' };
    expect(assertApproved(result, 'send_email', reordered)).toEqual(email.arguments);
  });

  it('a tampered argument, or another action, throws hash_mismatch', async () => {
    const result = await decided({ decision: 'approve' });
    const tampered = refusal(() =>
      assertApproved(result, 'send_email', { ...email.arguments, to: 'evil@example.com' }),
    );
    expect(tampered).toMatchObject({ name: 'ApprovalError', code: 'hash_mismatch' });
    expect(tampered.message).toMatch(/is not the one approved/);
    expect(refusal(() => assertApproved(result, 'delete_email', email.arguments)).code).toBe('hash_mismatch');
  });

  it('edit: the edited arguments are the ones to run, and the proposal no longer passes', async () => {
    const edited = { ...email.arguments, to: 'cfo@example.com' };
    const result = await decided({ decision: 'edit', arguments: edited, reason: 'CFO only' });
    expect(result).toMatchObject({
      decision: 'edit',
      arguments: edited,
      actionHash: actionHash(email.action, email.arguments),
      effectiveHash: actionHash(email.action, edited),
    });
    if (result.status !== 'answered') throw new Error('not answered');
    expect(assertApproved(result, 'send_email', result.arguments!)).toEqual(edited);
    expect(refusal(() => assertApproved(result, 'send_email', email.arguments)).code).toBe('hash_mismatch');
  });

  it('reject and request_changes throw with the person’s reason', async () => {
    const rejected = await decided({ decision: 'reject', reason: 'wrong quarter' });
    expect(refusal(() => assertApproved(rejected, 'send_email', email.arguments))).toMatchObject({
      code: 'rejected',
      reason: 'wrong quarter',
      message: 'rejected: wrong quarter',
    });
    const changes = await decided({ decision: 'request_changes', reason: 'attach the PDF and the CSV' });
    expect(refusal(() => assertApproved(changes, 'send_email', email.arguments))).toMatchObject({
      code: 'changes_requested',
      reason: 'attach the PDF and the CSV',
    });
  });

  it('no answer throws no_answer, even when the timeout states a decision', async () => {
    const result = await sdk.ask(
      { runId: `sdk-approval-${++run}`, approval: email, timeoutSeconds: 1, onTimeout: { decision: 'approve' } },
      { waitSeconds: 1 },
    );
    expect(result).toMatchObject({ status: 'no_answer', reason: 'timeout', decision: 'approve' });
    expect(refusal(() => assertApproved(result, 'send_email', email.arguments))).toMatchObject({
      code: 'no_answer',
      reason: 'timeout',
    });
  });

  it('exposes the approval schemas: what the SDK validates is what askgate accepts', () => {
    expect(DECISIONS).toEqual(['approve', 'reject', 'request_changes', 'edit']);
    expect(ApprovalRequestSchema.safeParse({ ...email, decisions: ['reject'] }).success).toBe(false);
  });
});

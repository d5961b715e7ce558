// Approvals (issue 36) through the HTTP API on Redis: the exact action is stored with its hash, every
// decision is checked by the rules a person's is (reasons, edits against the schema, self-approval,
// decisions offered), several approvers agree unless one says no, and a timeout states its decision.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import type { RunningAskgate } from '../../src/main.js';

let redis: TestRedis;
let app: RunningAskgate;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  redis = await startRedis();
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }));
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await redis?.stop();
});

const hashOf = (action: string, args: object) =>
  `sha256:${createHash('sha256')
    .update(canonicalize({ action, arguments: args })!)
    .digest('hex')}`;

const email = {
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report', attach: ['q3.pdf'] },
  summary: 'Send the Q3 report to finance',
  preview: '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-10\n+12',
};
const schema = {
  type: 'object',
  properties: { to: { type: 'string', format: 'email' }, subject: { type: 'string', maxLength: 40 } },
  required: ['to', 'subject'],
};
let runs = 0;
const create = async (approval: object, extra: object = {}) => {
  const res = await api.post('/v1/asks', { runId: `approval-${++runs}`, approval, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; approval: { actionHash: string; decisions: string[] } };
};
const decide = (id: string, body: object) => api.post(`/v1/asks/${id}/answer`, body);
const issuesOf = (body: { error: { issues: { path: unknown[]; message: string }[] } }) =>
  body.error.issues.map((i) => [i.path.join('.'), i.message]);
const view = async (id: string) => (await api.get(`/v1/asks/${id}`)).body;

describe('creating an approval', () => {
  it('stores the action with the sha256 of its RFC 8785 canonical JSON and the default decisions', async () => {
    const ask = await create(email);
    expect(ask.approval).toMatchObject({
      action: 'send_email',
      actionHash: hashOf('send_email', email.arguments),
      decisions: ['approve', 'reject', 'request_changes'],
    });
    // Key order does not change the hash.
    const reordered = await create({
      ...email,
      arguments: { attach: ['q3.pdf'], subject: 'Q3 report', to: 'finance@example.com' },
    });
    expect(reordered.approval.actionHash).toBe(ask.approval.actionHash);
    expect((await view(ask.id)).questions).toEqual([]);
  });

  it.each([
    ['no action', { arguments: {} }, 'approval.action'],
    ['arguments that are no object', { action: 'a', arguments: [1] }, 'approval.arguments'],
    ['arguments over 32 KB', { action: 'a', arguments: { x: 'y'.repeat(33_000) } }, 'approval.arguments'],
    ['a preview over 32 KB', { action: 'a', arguments: {}, preview: 'p'.repeat(33_000) }, 'approval.preview'],
    ['decisions without approve', { action: 'a', arguments: {}, decisions: ['reject'] }, 'approval.decisions'],
    ['a repeated decision', { action: 'a', arguments: {}, decisions: ['approve', 'approve'] }, 'approval.decisions'],
    ['an unknown decision', { action: 'a', arguments: {}, decisions: ['approve', 'maybe'] }, 'approval.decisions.1'],
    ['an unknown field', { action: 'a', arguments: {}, colour: 'red' }, 'approval'],
  ])('%s is a 400 naming the field', async (_name, approval, path) => {
    const res = await api.post('/v1/asks', { runId: 'approval-bad', approval });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body).map(([p]) => p)).toEqual([path]);
  });

  it.each([
    [
      'questions and an approval',
      { questions: [{ question: 'Q?', options: [{ label: 'a' }, { label: 'b' }] }], approval: email },
      'questions',
    ],
    ['neither', {}, 'questions'],
    [
      'edit where two must agree',
      { approval: { ...email, decisions: ['approve', 'edit'] }, agree: 2 },
      'approval.decisions',
    ],
    ['a default for an approval', { approval: email, onTimeout: { default: { q1: ['x'] } } }, 'onTimeout.default'],
    [
      'a schema ajv cannot compile',
      { approval: { ...email, argumentsSchema: { type: 'colour' } } },
      'approval.argumentsSchema',
    ],
  ])('%s is a 400 naming the field', async (_name, body, path) => {
    const res = await api.post('/v1/asks', { runId: 'approval-bad', ...body });
    expect(res.status).toBe(400);
    expect(issuesOf(res.body).map(([p]) => p)).toContain(path);
  });
});

describe('decisions through the API', () => {
  it('approve: the original arguments run, both hashes the same', async () => {
    const ask = await create(email);
    const res = await decide(ask.id, { decision: 'approve', by: 'carol' });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      status: 'answered',
      decision: 'approve',
      arguments: email.arguments,
      actionHash: ask.approval.actionHash,
      effectiveHash: ask.approval.actionHash,
      answeredBy: { channel: 'api', userId: 'carol' },
    });
  });

  it('reject needs a reason; without one the ask stays pending', async () => {
    const ask = await create(email);
    const bare = await decide(ask.id, { decision: 'reject' });
    expect(bare.status).toBe(400);
    expect(issuesOf(bare.body)).toEqual([['reason', 'say why: a reason is required to reject or to request changes']]);
    expect((await view(ask.id)).status).toBe('pending');
    const res = await decide(ask.id, { decision: 'request_changes', reason: 'attach the signed PDF' });
    expect(res.body.result).toMatchObject({ decision: 'request_changes', reason: 'attach the signed PDF' });
  });

  it('edit: checked against the schema, hashed, the proposed arguments kept apart', async () => {
    const ask = await create({ ...email, decisions: ['approve', 'reject', 'edit'], argumentsSchema: schema });
    const bad = await decide(ask.id, { decision: 'edit', arguments: { to: 'finance@example.com' } });
    expect(bad.status).toBe(400);
    expect(issuesOf(bad.body)).toEqual([
      ['arguments', "does not match the schema: must have required property 'subject'"],
    ]);
    const edited = { to: 'cfo@example.com', subject: 'Q3 report (final)' };
    const res = await decide(ask.id, { decision: 'edit', arguments: edited });
    expect(res.status).toBe(200);
    const record = await view(ask.id);
    expect(record.result).toMatchObject({
      decision: 'edit',
      arguments: edited,
      actionHash: hashOf('send_email', email.arguments),
      effectiveHash: hashOf('send_email', edited),
    });
    expect(record.approval.arguments).toEqual(email.arguments);
  });

  it('a decision not offered, answers for an approval, a decision for questions: 400s', async () => {
    const ask = await create(email);
    const edit = await decide(ask.id, { decision: 'edit', arguments: {} });
    expect(issuesOf(edit.body)).toEqual([
      ['decision', 'must be one of the decisions offered: approve, reject, request_changes'],
    ]);
    const answers = await decide(ask.id, { answers: { q1: ['yes'] } });
    expect(answers.status).toBe(400);
    const question = await api.post('/v1/asks', {
      runId: 'approval-q',
      questions: [{ question: 'Q?', options: [{ label: 'a' }, { label: 'b' }] }],
    });
    const onQuestions = await decide(question.body.id, { decision: 'approve' });
    expect(issuesOf(onQuestions.body)).toEqual([['decision', 'this ask asks questions: send answers, not a decision']]);
    expect((await view(ask.id)).status).toBe('pending');
  });

  it('the person who requested the action cannot approve it', async () => {
    const ask = await create({ ...email, requestedBy: { channel: 'api', userId: 'dave' } });
    const own = await decide(ask.id, { decision: 'approve', by: 'dave' });
    expect(issuesOf(own.body)).toEqual([['decision', 'you requested this action: someone else must decide']]);
    expect((await decide(ask.id, { decision: 'approve', by: 'erin' })).status).toBe(200);
  });
});

describe('policies on approvals', () => {
  it('agree: 2 different people approve; one rejection ends it at once', async () => {
    const ask = await create(email, { agree: 2 });
    expect((await decide(ask.id, { decision: 'approve', by: 'ann' })).status).toBe(200);
    expect((await view(ask.id)).status).toBe('pending');
    expect((await decide(ask.id, { decision: 'approve', by: 'ann' })).status).toBe(200);
    expect((await view(ask.id)).status).toBe('pending');
    await decide(ask.id, { decision: 'approve', by: 'ben' });
    const approved = await view(ask.id);
    expect(approved.result).toMatchObject({ status: 'answered', decision: 'approve' });
    expect(approved.result.responses.map((r: { decision: string }) => r.decision)).toEqual(['approve', 'approve']);

    const second = await create(email, { agree: 2 });
    await decide(second.id, { decision: 'approve', by: 'ann' });
    await decide(second.id, { decision: 'reject', reason: 'wrong quarter', by: 'ben' });
    expect((await view(second.id)).result).toMatchObject({ decision: 'reject', reason: 'wrong quarter' });
  });

  it('a timeout states the decision it was given, never as an answer', async () => {
    const ask = await create(email, { timeoutSeconds: 1, onTimeout: { decision: 'reject' } });
    const ended = await eventually(async () => {
      const got = await view(ask.id);
      return got.status === 'no_answer' ? got : undefined;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'timeout', decision: 'reject' });
  });
});

// Approvals in core, as tables: how a reply reads in each language, how the approval is shown, what
// the decide transition takes and refuses, and the token of a decision button.
import { describe, expect, it } from 'vitest';
import { readDecision } from '../../src/core/approval/approval-reply.js';
import { approvalText, approvalView } from '../../src/core/approval/approval-view.js';
import { decisionProblem } from '../../src/core/approval/decide.js';
import { storedApproval } from '../../src/core/approval/approval-schema.js';
import { decodeToken, encodeToken } from '../../src/core/token.js';
import { DECISIONS } from '../../src/core/approval/decisions.js';
import { ENGLISH, wordsFor } from '../../src/core/i18n/index.js';
import { askRecord } from '../helpers/records.js';

const ALL = DECISIONS;
const never = () => false;
const read = (text: string, locale = 'en', offered: readonly (typeof DECISIONS)[number][] = ALL) =>
  readDecision(text, offered, wordsFor(locale), ENGLISH, never);

describe('a reply to an approval', () => {
  it.each([
    ['approve', 'en', { decision: 'approve' }],
    ['Approve: looks right', 'en', { decision: 'approve', reason: 'looks right' }],
    ['reject: wrong account', 'en', { decision: 'reject', reason: 'wrong account' }],
    ['REJECT wrong account', 'en', { decision: 'reject', reason: 'wrong account' }],
    ['request changes: use 2 replicas', 'en', { decision: 'request_changes', reason: 'use 2 replicas' }],
    ['changes: smaller batch', 'en', { decision: 'request_changes', reason: 'smaller batch' }],
    ['edit: {"n": 2}', 'en', { decision: 'edit', arguments: { n: 2 } }],
    ['aprovar', 'pt-BR', { decision: 'approve' }],
    ['rejeitar: conta errada', 'pt-BR', { decision: 'reject', reason: 'conta errada' }],
    ['pedir alterações: menos réplicas', 'pt-BR', { decision: 'request_changes', reason: 'menos réplicas' }],
    ['rechazar: no', 'es', { decision: 'reject', reason: 'no' }],
    ['refuser : trop tôt', 'fr', { decision: 'reject', reason: 'trop tôt' }],
    ['ablehnen: zu früh', 'de', { decision: 'reject', reason: 'zu früh' }],
    ['Änderungen anfordern: kleiner', 'de', { decision: 'request_changes', reason: 'kleiner' }],
    ['承認', 'ja', { decision: 'approve' }],
    ['却下: 早すぎる', 'ja', { decision: 'reject', reason: '早すぎる' }],
    ['reject: English works in any language', 'de', { decision: 'reject', reason: 'English works in any language' }],
  ])('%s (%s)', (text, locale, expected) => {
    expect(read(text, locale)).toEqual({ kind: 'decision', ...expected });
  });

  it.each([
    ['approved-ish', 'en'],
    ['rejected?!', 'en'],
    ['maybe', 'en'],
    ['editar', 'en'],
  ])('%s is not a decision (%s)', (text, locale) => {
    expect(read(text, locale).kind).toBe('invalid');
  });

  it('a decision not offered is not read; edit needs JSON; blank is empty', () => {
    expect(read('edit: {"n": 2}', 'en', ['approve', 'reject']).kind).toBe('invalid');
    expect(read('edit: n=2')).toMatchObject({
      kind: 'invalid',
      hint: expect.stringMatching(/^Send the edited arguments as JSON/),
    });
    expect(read('   ')).toEqual({ kind: 'empty' });
    expect(readDecision('pular', ALL, wordsFor('pt-BR'), ENGLISH, (t) => t === 'pular')).toEqual({ kind: 'skip' });
  });
});

describe('how an approval is shown', () => {
  const approval = storedApproval(
    { action: 'deploy', arguments: { service: 'billing', replicas: 3, canary: true }, summary: 'Deploy billing' },
    'sha256:3fa9c2d1' + '0'.repeat(56),
  );

  it('flat arguments as key: value lines, the hash short', () => {
    const view = approvalView(approval);
    expect(view).toMatchObject({
      lines: ['service: billing', 'replicas: 3', 'canary: true'],
      json: null,
      hash: '3fa9c2d1',
    });
    expect(approvalText(view, ENGLISH)).toBe(
      'Deploy billing\nAction: deploy\nservice: billing\nreplicas: 3\ncanary: true\nHash #3fa9c2d1',
    );
  });

  it('hidden characters in arguments and the preview show as \\u escapes (what a person reads is what runs)', () => {
    const view = approvalView({
      ...approval,
      arguments: { 'k\u202e': 'prod\u0000\u200b\nrm -rf /' },
      preview: 'a\n\u202eb\tc',
    });
    expect(view.lines).toEqual(['k\\u202E: prod\\u0000\\u200B\\u000Arm -rf /']);
    expect(view.preview).toBe('a\n\\u202Eb\tc');
    const nested = approvalView({ ...approval, arguments: { cmd: ['\u2066x\u2069'] } });
    expect(nested.json).toBe('{\n  "cmd": [\n    "\\u2066x\\u2069"\n  ]\n}');
    expect(nested.arguments).toEqual({ cmd: ['\u2066x\u2069'] });
  });

  it('nested arguments as indented JSON; a long text is cut with … and keeps no more than its limit', () => {
    const nested = approvalView({ ...approval, arguments: { to: ['a@x.co', 'b@x.co'], opts: { cc: null } } });
    expect(nested.lines).toBeNull();
    expect(nested.json).toBe(JSON.stringify({ to: ['a@x.co', 'b@x.co'], opts: { cc: null } }, null, 2));
    const long = approvalText(approvalView({ ...approval, preview: 'x'.repeat(5000) }), ENGLISH);
    expect(long.length).toBeLessThanOrEqual(3000);
    expect(long).toContain('…');
  });
});

describe('what a decision must carry', () => {
  const record = askRecord([], {
    approval: {
      ...storedApproval({ action: 'a', arguments: {}, requestedBy: { channel: 'test', userId: 'me' } }, 'sha256:00'),
    },
  });
  const by = { channel: 'test', userId: 'someone' };
  it.each([
    [{ decision: 'approve' as const, by }, null],
    [{ decision: 'reject' as const, by }, 'reason'],
    [{ decision: 'reject' as const, reason: '  ', by }, 'reason'],
    [{ decision: 'request_changes' as const, reason: 'why', by }, null],
    [{ decision: 'edit' as const, by }, 'decision'],
    [{ decision: 'approve' as const, arguments: {}, by }, 'arguments'],
    [{ decision: 'approve' as const, by: { channel: 'test', userId: 'me' } }, 'decision'],
  ])('%o -> %s', (event, path) => {
    expect(decisionProblem(record, event)?.path[0] ?? null).toBe(path);
  });

  it('a decision button round-trips through the token codec', () => {
    for (const decision of DECISIONS) {
      const token = encodeToken({ askId: 'AskApproval01', version: 3, choice: { kind: 'decide', decision } });
      expect(decodeToken(token)).toEqual({ askId: 'AskApproval01', version: 3, choice: { kind: 'decide', decision } });
    }
    expect(decodeToken('AskApproval01.3.dx')).toBeNull();
  });
});

describe('an approval that needs several people', () => {
  it('its tally counts approvals by person, named by the decision', async () => {
    const { buildPromptView } = await import('../../src/core/prompt-view.js');
    const approval = storedApproval({ action: 'a', arguments: {} }, 'sha256:ab');
    const alice = { channel: 'test', userId: 'u1', name: 'Alice' };
    const record = askRecord([], {
      approval,
      policy: { agree: 2 },
      responses: [{ answers: {}, decision: 'approve', answeredBy: alice, answeredAt: '2026-12-07T10:00:00.000Z' }],
    });
    const view = buildPromptView(record, ENGLISH);
    expect(view.tally).toEqual(['Approve 1 — 2 matching answers needed', 'Answered: Alice']);
    expect(view.buttons!.map((b) => b.label)).toEqual(['Approve', 'Reject…', 'Request changes…']);
  });
});

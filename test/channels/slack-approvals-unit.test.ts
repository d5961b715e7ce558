// The Slack approval modals in every locale against the fake's views.open checks, what does not fit
// a modal (the tap then says how to reply), and reading untrusted submissions.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { actionHash } from '../../src/app/action-hash.js';
import { approvalForm } from '../../src/app/inbound-approval.js';
import { ENGLISH } from '../../src/core/i18n/index.js';
import { visibleMessage } from '../fakes/slack-api.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { LOCALES, wordsFor } from '../../src/core/i18n/index.js';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { decisionModal, fieldNamed, readDecision } from '../../src/channels/slack/approval-modal.js';
import { renderPrompt } from '../../src/channels/slack/render.js';
import { DECISIONS } from '../../src/core/approval/decisions.js';
import { checkModal, fillModal, renderModal } from '../fakes/slack-views.js';

const HASH = 'sha256:3fa9c2d1' + '0'.repeat(56);
const view = (args: Record<string, unknown>, locale = 'en') =>
  buildPromptView(
    {
      id: 'a1',
      version: 1,
      questions: [],
      approval: { action: 'deploy', arguments: args, decisions: [...DECISIONS], actionHash: HASH, summary: 'Deploy' },
    } as never,
    wordsFor(locale),
    SLACK_CAPABILITIES,
  );
const meta = { token: 'tok', channel: 'C0001' };

describe('decision modals', () => {
  const shapes = { flat: { service: 'billing', replicas: 3 }, nested: { to: ['a'], o: { p: 1 } } };
  for (const locale of LOCALES.keys())
    for (const [shape, args] of Object.entries(shapes))
      for (const decision of ['reject', 'request_changes', 'edit'] as const)
        it(`${decision} (${shape} arguments) in ${locale} passes views.open's checks`, () => {
          const modal = decisionModal(view(args, locale), decision, meta, locale);
          expect(modal).not.toBeNull();
          expect(checkModal(modal)).toBeNull();
        });

  it('Approve has no modal, and an edit whose JSON does not fit a text input has none either', () => {
    expect(decisionModal(view({ a: 1 }), 'approve', meta, 'en')).toBeNull();
    const big = { list: Array.from({ length: 400 }, (_, i) => `item-${i}`) };
    expect(decisionModal(view(big), 'edit', meta, 'en')).toBeNull();
    expect(decisionModal(view(big), 'reject', meta, 'en')).not.toBeNull();
  });

  it('renders as a person sees it', () => {
    const modal = decisionModal(view({ service: 'billing', replicas: 3 }), 'edit', meta, 'en')!;
    expect(renderModal(modal)).toBe(
      [
        '┌─ Edit ─┐',
        '*Deploy*',
        'Action: `deploy`',
        'Hash #3fa9c2d1',
        'service (optional)',
        '  [ billing ]',
        'replicas (optional)',
        '  [ 3 ]',
        '[Cancel]  [Submit]',
      ].join('\n'),
    );
  });
});

describe('reading a decision modal (untrusted)', () => {
  it('reads the reason, the fields in order, or the JSON', () => {
    const edit = decisionModal(view({ service: 'billing', replicas: 3 }), 'edit', meta, 'en')!;
    expect(readDecision(fillModal(edit, { askgate_arg2: '4' }))).toEqual({
      made: { edit: { fields: ['billing', '4'] } },
      field: 'askgate_arg1',
    });
    const reject = decisionModal(view({ a: 1 }), 'reject', meta, 'en')!;
    expect(readDecision(fillModal(reject, { askgate_reason: 'no' }))).toEqual({
      made: { reason: 'no' },
      field: 'askgate_reason',
    });
  });

  it('is null for anything else', () => {
    for (const values of [null, [], 'x', {}, { askgate_reason: { askgate_reason: { value: 5 } } }, { __proto__: 1 }])
      expect(readDecision(values)).toBeNull();
  });

  it('puts a schema problem beside the argument it names', () => {
    const edit = decisionModal(view({ service: 'billing', replicas: 3 }), 'edit', meta, 'en')!;
    expect(fieldNamed(edit.blocks, 'does not match the schema: replicas must be <= 5.', 'askgate_arg1')).toBe(
      'askgate_arg2',
    );
    expect(fieldNamed(edit.blocks, 'must be an object.', 'askgate_arg1')).toBe('askgate_arg1');
    expect(fieldNamed('junk', 'does not match the schema: replicas x', 'f')).toBe('f');
  });
});

describe('the approval message', () => {
  it('keeps the head with the hash when the arguments are empty', () => {
    const rendered = renderPrompt(view({}));
    expect(rendered.blocks[0]).toMatchObject({ text: { text: '*Deploy*\nAction: `deploy`\nHash #3fa9c2d1' } });
    expect(rendered.blocks.some((b) => b.block_id === 'askgate_args1')).toBe(false);
  });
});

describe('docs/forms-slack.md, Approvals', () => {
  it('shows the message and the modals exactly as askgate renders them', async () => {
    const doc = await readFile(new URL('../../docs/forms-slack.md', import.meta.url), 'utf8');
    const args = { to: 'finance@example.com', subject: 'Q3 report', attach: 'q3.pdf' };
    const approval = {
      action: 'send_email',
      arguments: args,
      summary: 'Send the Q3 report to finance',
      preview: '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-q3,draft\n+q3,final',
      decisions: [...DECISIONS],
      actionHash: actionHash('send_email', args),
    };
    const prompt = buildPromptView(
      { id: 'a1', version: 1, questions: [], approval } as never,
      wordsFor('en'),
      SLACK_CAPABILITIES,
    );
    const shown = visibleMessage({ blocks: renderPrompt(prompt).blocks, text: '' } as never);
    expect(doc).toContain(`~~~\n${shown.text}\n${shown.buttons.map((b) => `[ ${b.label} ]`).join(' ')}\n~~~`);
    for (const decision of ['reject', 'edit'] as const)
      expect(doc).toContain(`\`\`\`\n${renderModal(decisionModal(prompt, decision, meta, 'en'))}\n\`\`\``);
  });
});

describe('a decision from a form (app/inbound-approval.ts approvalForm, behind InboundSink.decide)', () => {
  const args = { s: 'x', n: 1, b: true, z: null };
  const record = {
    id: 'a1',
    approval: { action: 'act', arguments: args, decisions: [...DECISIONS], actionHash: actionHash('act', args) },
  } as never;
  const by = { channel: 'slack', userId: 'U1' };
  const made = (decision: (typeof DECISIONS)[number], extra: object) =>
    approvalForm(
      record,
      { kind: 'decide', decision },
      { channel: 'slack', token: 't', user: by, chat: 'C1', ...extra },
      ENGLISH,
    );

  it('reads each flat field with its original’s type, then hashes the edit', () => {
    const edited = { s: '42', n: 2, b: false, z: 'now text' };
    expect(made('edit', { edit: { fields: ['42', '2', 'false', 'now text'] } })).toEqual({
      type: 'decide',
      decision: 'edit',
      arguments: edited,
      effectiveHash: actionHash('act', edited),
      by,
      chat: 'C1',
    });
  });

  it('refuses fields that do not match the arguments, and a token that is no decision', () => {
    expect(made('edit', { edit: { fields: ['x'] } })).toMatchObject({ kind: 'invalid' });
    expect(made('edit', { edit: { json: '[1]' } })).toMatchObject({ kind: 'invalid' });
    expect(approvalForm(record, { kind: 'skip' }, { channel: 'slack', token: 't', user: by }, ENGLISH)).toMatchObject({
      kind: 'not_found',
    });
  });

  it('passes a trimmed reason; a blank one is left for the transition to refuse', () => {
    expect(made('reject', { reason: '  too early ' })).toMatchObject({ decision: 'reject', reason: 'too early' });
    expect(made('reject', { reason: '  ' })).not.toHaveProperty('reason');
  });
});

// The Slack approval modals in every locale against the fake's views.open checks, what does not fit
// a modal (the tap then says how to reply), and reading untrusted submissions.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { actionHash } from '../../src/app/action-hash.js';
import { visibleMessage } from '../fakes/slack-api.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { LOCALES, wordsFor } from '../../src/core/i18n/index.js';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { decisionModal, fieldNamed, readDecision } from '../../src/channels/slack/approval-modal.js';
import { renderPrompt } from '../../src/channels/slack/render.js';
import { DECISIONS } from '../../src/core/approval/decisions.js';
import { checkModal, fillModal, renderModal } from '../fakes/slack-views.js';

const short = (args: Record<string, unknown>) => actionHash('deploy', args).slice(7, 15);
const view = (args: Record<string, unknown>, locale = 'en', hash = actionHash('deploy', args)) =>
  buildPromptView(
    {
      id: 'a1',
      version: 1,
      questions: [],
      approval: { action: 'deploy', arguments: args, decisions: [...DECISIONS], actionHash: hash, summary: 'Deploy' },
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
        `Hash #${short({ service: 'billing', replicas: 3 })}`,
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
  it('reads the reason, each field with its type, or the JSON', () => {
    const edit = decisionModal(view({ service: 'billing', replicas: 3 }), 'edit', meta, 'en')!;
    expect(edit.blocks.slice(1).map((b) => b.block_id)).toEqual(['askgate_as:service', 'askgate_aj:replicas']);
    expect(readDecision(fillModal(edit, { 'askgate_aj:replicas': '4' }))).toEqual({
      read: { arguments: { service: 'billing', replicas: 4 } },
      field: 'askgate_as:service',
    });
    // A JSON-typed field that no longer reads as JSON is kept as text, for the schema to judge.
    expect(readDecision(fillModal(edit, { 'askgate_aj:replicas': 'four' }))?.read).toEqual({
      arguments: { service: 'billing', replicas: 'four' },
    });
    const reject = decisionModal(view({ a: 1 }), 'reject', meta, 'en')!;
    expect(readDecision(fillModal(reject, { askgate_reason: 'no' }))).toEqual({
      read: { reason: 'no' },
      field: 'askgate_reason',
    });
    const json = decisionModal(view({ a: [1] }), 'edit', meta, 'en')!;
    expect(readDecision(fillModal(json, { askgate_json: '{"a": [2]}' }))?.read).toEqual({ arguments: { a: [2] } });
    expect(readDecision(fillModal(json, { askgate_json: '{"a": [' }))?.read).toEqual({ notJson: true });
  });

  it('keeps a key such as __proto__ an own property', () => {
    const values = { 'askgate_as:__proto__': { askgate_arg: { type: 'plain_text_input', value: 'x' } } };
    const args = (readDecision(values)?.read as { arguments: object }).arguments;
    expect(Object.keys(args)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
  });

  it('is null for anything else', () => {
    for (const values of [null, [], 'x', {}, { askgate_reason: { askgate_reason: { value: 5 } } }, { __proto__: 1 }])
      expect(readDecision(values)).toBeNull();
  });

  it('puts a schema problem beside the argument it names', () => {
    const edit = decisionModal(view({ service: 'billing', replicas: 3 }), 'edit', meta, 'en')!;
    const hint = 'Does not match the schema: replicas must be <= 5.';
    expect(fieldNamed(edit.blocks, hint, 'askgate_as:service')).toBe('askgate_aj:replicas');
    expect(fieldNamed(edit.blocks, 'Must be an object.', 'askgate_as:service')).toBe('askgate_as:service');
    expect(fieldNamed('junk', 'does not match the schema: replicas x', 'f')).toBe('f');
  });
});

describe('the approval message', () => {
  it('keeps the head with the hash when the arguments are empty', () => {
    const rendered = renderPrompt(view({}));
    expect(rendered.blocks[0]).toMatchObject({ text: { text: `*Deploy*\nAction: \`deploy\`\nHash #${short({})}` } });
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

describe('the edit modal starts from the arguments exactly as proposed', () => {
  it('a string field stays text, a number, boolean or null field reads as JSON; a key may hold ": "', () => {
    const args = { a: '3', b: 3, 'c: d': true, e: null };
    const modal = decisionModal(view(args), 'edit', meta, 'en')!;
    const inputs = modal.blocks.slice(1) as { block_id: string; element: { initial_value?: string } }[];
    expect(inputs.map((b) => [b.block_id, b.element.initial_value])).toEqual([
      ['askgate_as:a', '3'],
      ['askgate_aj:b', '3'],
      ['askgate_aj:c: d', 'true'],
      ['askgate_aj:e', 'null'],
    ]);
    expect(readDecision(fillModal(modal, {}))?.read).toEqual({ arguments: args });
  });
});

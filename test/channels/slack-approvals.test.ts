// Approvals drawn natively on Slack (issue 36), end to end through the real @slack/bolt against the
// Slack fake: Block Kit with the summary, the action, the arguments as fields or code, the preview
// and the short hash; Approve by tap; Reject…, Request changes… and Edit… through modals (a blank
// reason and an edit the schema refuses go back beside the field); self-approval refused; several
// approvers with a rejection that ends the ask; outcome edits; a timeout with a stated decision.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionHash } from '../../src/app/action-hash.js';
import { eventually } from '../helpers/http.js';
import {
  finalMessage,
  nextNotice,
  noticesFor,
  openModal,
  record,
  result,
  startWorld,
  tapPayload,
  type FormsWorld,
} from './slack-forms-world.js';
import { ALICE, BOB, askApproval, blockOf, current, DEPLOY, shown } from './slack-approvals-world.js';

let w: FormsWorld;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('an approval on Slack: the message', () => {
  it('shows the summary first, the action, the arguments as fields, the preview as code and the hash', async () => {
    const preview = '--- a/budget.csv\n+++ b/budget.csv\n@@ -1 +1 @@\n-q3 <draft> & co\n+q3 final';
    const { message, hash } = await askApproval(w, {
      action: 'send_email',
      arguments: { to: 'finance@example.com', subject: 'Q3 <report> & more', urgent: true },
      summary: 'Send the Q3 report to finance',
      preview,
    });
    const head = blockOf(w, message, 'askgate_q1');
    expect(head.text.text).toBe(
      ['*Send the Q3 report to finance*', 'Action: `send_email`', `Hash #${hash}`].join('\n'),
    );
    expect(blockOf(w, message, 'askgate_args1').fields).toEqual([
      { type: 'mrkdwn', text: '*to*\nfinance@example.com' },
      { type: 'mrkdwn', text: '*subject*\nQ3 &lt;report&gt; &amp; more' },
      { type: 'mrkdwn', text: '*urgent*\ntrue' },
    ]);
    expect(blockOf(w, message, 'askgate_preview')).toEqual({
      type: 'rich_text',
      block_id: 'askgate_preview',
      elements: [
        { type: 'rich_text_section', elements: [{ type: 'text', text: 'Preview:', style: { bold: true } }] },
        { type: 'rich_text_preformatted', elements: [{ type: 'text', text: preview }] },
      ],
    });
    const actions = current(w, message).blocks.find((b: any) => b.type === 'actions') as any;
    expect(actions.elements.map((e: any) => [e.text.text, e.style])).toEqual([
      ['Approve', 'primary'],
      ['Reject…', 'danger'],
      ['Request changes…', undefined],
      ['Skip', undefined],
    ]);
    // The notification text names what is asked, with the hash.
    expect(current(w, message).text).toContain(`Hash #${hash}`);
  });

  it('shows nested arguments as indented JSON in a code block', async () => {
    const args = { to: ['a@example.com', 'b@example.com'], options: { priority: 'high' } };
    const { message } = await askApproval(w, { action: 'send_email', arguments: args });
    expect(blockOf(w, message, 'askgate_args1')).toBeUndefined();
    const json = blockOf(w, message, 'askgate_json');
    expect(json.elements).toEqual([
      { type: 'rich_text_preformatted', elements: [{ type: 'text', text: JSON.stringify(args, null, 2) }] },
    ]);
  });

  it('cuts what does not fit with a visible "…" and always shows the hash', async () => {
    const many = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i + 1}`, `v${i + 1}`]));
    const { message, hash } = await askApproval(w, {
      action: 'bulk_update',
      arguments: { ...many, k1: 'x'.repeat(2500) },
      summary: 'S'.repeat(300),
      preview: 'p'.repeat(10_000),
    });
    const head = blockOf(w, message, 'askgate_q1').text.text as string;
    expect(head).toBe(`*${'S'.repeat(300)}*\nAction: \`bulk_update\`\nHash #${hash}`);
    const sections = [1, 2, 3, 4].map((n) => blockOf(w, message, `askgate_args${n}`));
    expect(sections.every((s) => s.fields.length === 10)).toBe(true);
    expect(blockOf(w, message, 'askgate_args5')).toBeUndefined();
    const first = sections[0].fields[0].text as string;
    expect(first.length).toBeLessThanOrEqual(2000);
    expect(first.endsWith('…')).toBe(true);
    expect(sections[3].fields[9].text).toBe('…');
    const code = blockOf(w, message, 'askgate_preview').elements[1].elements[0].text as string;
    expect(code).toHaveLength(2900);
    expect(code.endsWith('…')).toBe(true);
    expect(shown(w, message).text).toContain(`Hash #${hash}`);
  });
});

/** Taps a button of the message as `user` (no modal). */
const tap = (message: any, label: string, user: string) => w.slack.postInteractive(tapPayload(w, message, label, user));

describe('an approval on Slack: deciding', () => {
  it('Approve by a tap decides; the message keeps the approval and says who approved what', async () => {
    const { id, message, hash } = await askApproval(w, DEPLOY);
    expect((await tap(message, 'Approve', ALICE)).status).toBe(200);
    expect(await result(w, id)).toMatchObject({
      status: 'answered',
      decision: 'approve',
      answeredBy: { userId: ALICE },
    });
    const final = await finalMessage(w, id, message);
    expect(final.buttons).toEqual([]);
    expect(final.text).toContain(`Hash #${hash}`);
    expect(final.text).toContain(`Approved by @u0001 (#${hash})`);
  });

  it('Reject… opens a modal with a required reason: a blank one is refused on the field', async () => {
    const { id, message, hash } = await askApproval(w, DEPLOY);
    const view = await openModal(w, message, ALICE, 'Reject…');
    expect(view.view).toMatchObject({ callback_id: 'askgate_decide', title: { text: 'Reject' } });
    expect(view.view.blocks[0].text.text).toBe(`*Deploy billing 2.3.1*\nAction: \`deploy\`\nHash #${hash}`);
    expect(view.view.blocks[1]).toMatchObject({ block_id: 'askgate_reason', optional: false, label: { text: 'Why?' } });
    // Slack's client does not send an empty required field; blank text reaches askgate and is refused.
    expect(() => w.slack.viewSubmission(view, { askgate_reason: '' })).toThrow(/required/);
    const blank = await w.slack.submitView(view, { askgate_reason: '   ' });
    expect(blank.body).toEqual({ response_action: 'errors', errors: { askgate_reason: 'Say why in a few words.' } });
    expect((await record(w, id)).status).toBe('pending');
    const res = await w.slack.submitView(view, { askgate_reason: 'the change freeze starts tomorrow' });
    expect(res).toMatchObject({ status: 200, text: '' });
    expect(await result(w, id)).toMatchObject({ decision: 'reject', reason: 'the change freeze starts tomorrow' });
    const final = await finalMessage(w, id, message);
    expect(final.text).toContain('Rejected by @u0001');
    expect(final.text).not.toContain('freeze');
  });

  it('Request changes… takes what should change', async () => {
    const { id, message } = await askApproval(w, DEPLOY);
    const view = await openModal(w, message, BOB, 'Request changes…');
    expect(view.view.blocks[1]).toMatchObject({ label: { text: 'What should change?' } });
    await w.slack.submitView(view, { askgate_reason: 'use 2 replicas' });
    expect(await result(w, id)).toMatchObject({ decision: 'request_changes', reason: 'use 2 replicas' });
    expect((await finalMessage(w, id, message)).text).toContain('Changes requested by @u0002');
  });

  it('Edit… shows one field per flat argument, checks the edit against the schema, and hashes it', async () => {
    const { id, message, hash } = await askApproval(w, DEPLOY);
    const view = await openModal(w, message, ALICE, 'Edit…');
    const inputs = view.view.blocks.filter((b: any) => b.type === 'input');
    expect(inputs.map((b: any) => [b.block_id, b.label.text, b.element.initial_value])).toEqual([
      ['askgate_as:service', 'service', 'billing'],
      ['askgate_as:version', 'version', '2.3.1'],
      ['askgate_aj:replicas', 'replicas', '3'],
    ]);
    const bad = await w.slack.submitView(view, { 'askgate_aj:replicas': '9' });
    expect(bad.body).toEqual({
      response_action: 'errors',
      errors: { 'askgate_aj:replicas': 'Does not match the schema: replicas must be <= 5.' },
    });
    expect((await record(w, id)).status).toBe('pending');
    await w.slack.submitView(view, { 'askgate_aj:replicas': '2' });
    const edited = { service: 'billing', version: '2.3.1', replicas: 2 };
    const got = await result(w, id);
    expect(got).toMatchObject({ decision: 'edit', arguments: edited, effectiveHash: actionHash('deploy', edited) });
    const short = got.effectiveHash.slice(7, 15);
    expect(short).not.toBe(hash);
    expect((await finalMessage(w, id, message)).text).toContain(`Approved with changes by @u0001 (#${short})`);
  });

  it('Edit… of nested arguments is one JSON field: JSON that does not read, then a valid edit', async () => {
    const args = { to: ['a@example.com'], options: { priority: 'high' } };
    const { id, message } = await askApproval(w, {
      action: 'send_email',
      arguments: args,
      decisions: ['approve', 'edit'],
      argumentsSchema: { type: 'object', required: ['to'] },
    });
    const view = await openModal(w, message, ALICE, 'Edit…');
    expect(view.view.blocks[1]).toMatchObject({
      block_id: 'askgate_json',
      label: { text: 'Arguments (JSON)' },
      element: { initial_value: JSON.stringify(args, null, 2) },
    });
    const unreadable = await w.slack.submitView(view, { askgate_json: '{"to": [' });
    expect(unreadable.body.errors).toEqual({
      askgate_json: 'This is not valid JSON: check the quotes, commas and brackets.',
    });
    const missing = await w.slack.submitView(view, { askgate_json: '{"options": {}}' });
    expect(missing.body.errors.askgate_json).toBe("Does not match the schema: must have required property 'to'.");
    await w.slack.submitView(view, { askgate_json: '{"to": ["cfo@example.com"]}' });
    expect(await result(w, id)).toMatchObject({ decision: 'edit', arguments: { to: ['cfo@example.com'] } });
  });

  it('refuses the requester’s own decision, by tap and in a modal; someone else decides', async () => {
    const { id, message } = await askApproval(w, { ...DEPLOY, requestedBy: { channel: 'slack', userId: ALICE } });
    const before = noticesFor(w, ALICE).length;
    await tap(message, 'Approve', ALICE);
    expect(await nextNotice(w, ALICE, before)).toBe('You requested this action: someone else must decide.');
    const view = await openModal(w, message, ALICE, 'Reject…');
    const own = await w.slack.submitView(view, { askgate_reason: 'no' });
    expect(own.body.errors).toEqual({ askgate_reason: 'You requested this action: someone else must decide.' });
    expect((await record(w, id)).status).toBe('pending');
    await tap(message, 'Approve', BOB);
    expect(await result(w, id)).toMatchObject({ decision: 'approve', answeredBy: { userId: BOB } });
  });

  it('agree 2: one approval counts, a rejection by another person ends the ask at once', async () => {
    const { id, message } = await askApproval(
      w,
      { ...DEPLOY, decisions: ['approve', 'reject', 'request_changes'] },
      { agree: 2 },
    );
    expect(shown(w, message).buttons.map((b) => b.label)).toEqual(['Approve', 'Reject…', 'Request changes…']);
    await tap(message, 'Approve', ALICE);
    await eventually(async () => ((await record(w, id)).responses ?? []).length === 1);
    expect((await record(w, id)).status).toBe('pending');
    const view = await openModal(w, message, BOB, 'Reject…');
    await w.slack.submitView(view, { askgate_reason: 'not during the freeze' });
    expect(await result(w, id)).toMatchObject({ decision: 'reject', answeredBy: { userId: BOB } });
    expect((await finalMessage(w, id, message)).text).toContain('Rejected by @u0002');
  });

  it('a timeout states its decision beside no_answer; a tap after it is told the ask ended', async () => {
    const { id, message } = await askApproval(w, DEPLOY, { timeoutSeconds: 1, onTimeout: { decision: 'reject' } });
    const late = tapPayload(w, message, 'Approve', BOB);
    const ended = await eventually(async () => {
      const got = await record(w, id);
      return got.status === 'no_answer' ? got : undefined;
    });
    expect(ended.result).toMatchObject({ status: 'no_answer', reason: 'timeout', decision: 'reject' });
    const final = await finalMessage(w, id, message);
    expect(final.buttons).toEqual([]);
    expect(final.text).toContain('Expired with no decision: rejected, as the request stated for a timeout');
    const before = noticesFor(w, BOB).length;
    await w.slack.postInteractive(late);
    expect(await nextNotice(w, BOB, before)).toMatch(/expired|no longer|ended/i);
    expect((await record(w, id)).result.decision).toBe('reject');
  });
});

describe('an approval on Slack: fallbacks, language, forgeries', () => {
  it('an edit too large for a modal says how to reply in the thread, and the reply decides', async () => {
    const args = { list: Array.from({ length: 400 }, (_, i) => `item-${i}`) };
    const { id, message } = await askApproval(w, { action: 'tag', arguments: args, decisions: ['approve', 'edit'] });
    const before = noticesFor(w, ALICE).length;
    const views = w.fake.viewsFor(ALICE).length;
    await tap(message, 'Edit…', ALICE);
    expect(await nextNotice(w, ALICE, before)).toBe(
      'Reply in this thread with "edit:" and the edited arguments as JSON. Nothing has been done yet.',
    );
    expect(w.fake.viewsFor(ALICE)).toHaveLength(views);
    const reply = w.slack.messageEvent({
      channel: message.channel,
      user: ALICE,
      text: 'edit: {"list": ["one"]}',
      threadTs: message.ts,
    });
    expect((await w.slack.postEvent(reply)).status).toBe(200);
    expect(await result(w, id)).toMatchObject({ decision: 'edit', arguments: { list: ['one'] } });
  });

  it('a decision tap without a trigger_id says how to decide in the thread, in the ask’s language; the reply decides', async () => {
    const untriggered = (message: any, label: string, user: string) => {
      const { trigger_id: _none, ...payload } = tapPayload(w, message, label, user) as Record<string, unknown>;
      return w.slack.postInteractive(payload);
    };
    const { id, message } = await askApproval(w, DEPLOY);
    const views = w.fake.viewsFor(ALICE).length;
    const before = noticesFor(w, ALICE).length;
    await untriggered(message, 'Reject…', ALICE);
    expect(await nextNotice(w, ALICE, before)).toBe(
      'Reply in this thread with "reject:" and why. Nothing has been done yet.',
    );
    await untriggered(message, 'Request changes…', ALICE);
    expect(await nextNotice(w, ALICE, before + 1)).toBe(
      'Reply in this thread with "request changes:" and why. Nothing has been done yet.',
    );
    await untriggered(message, 'Edit…', ALICE);
    expect(await nextNotice(w, ALICE, before + 2)).toBe(
      'Reply in this thread with "edit:" and the edited arguments as JSON. Nothing has been done yet.',
    );
    expect(w.fake.viewsFor(ALICE)).toHaveLength(views);
    expect((await record(w, id)).status).toBe('pending');
    const reply = w.slack.messageEvent({
      channel: message.channel,
      user: ALICE,
      text: 'reject: not on a Friday',
      threadTs: message.ts,
    });
    expect((await w.slack.postEvent(reply)).status).toBe(200);
    expect(await result(w, id)).toMatchObject({ decision: 'reject', reason: 'not on a Friday' });

    const { message: pt } = await askApproval(w, DEPLOY, { locale: 'pt-BR' });
    const ptBefore = noticesFor(w, BOB).length;
    await untriggered(pt, 'Rejeitar…', BOB);
    expect(await nextNotice(w, BOB, ptBefore)).toBe(
      'Responda neste fio com "rejeitar:" e o motivo. Nada foi feito ainda.',
    );
  });

  it('speaks the ask’s language in the modal', async () => {
    const { message } = await askApproval(w, DEPLOY, { locale: 'pt-BR' });
    const view = await openModal(w, message, BOB, 'Rejeitar…');
    expect(view.view).toMatchObject({ title: { text: 'Rejeitar' }, submit: { text: 'Enviar' } });
    expect(view.view.blocks[1].label.text).toBe('Por quê?');
    const blank = await w.slack.submitView(view, { askgate_reason: ' ' });
    expect(blank.body.errors).toEqual({ askgate_reason: 'Diga o motivo em poucas palavras.' });
  });

  it('a modal whose metadata askgate did not write decides nothing', async () => {
    const { id, message } = await askApproval(w, DEPLOY);
    const view = await openModal(w, message, ALICE, 'Reject…');
    const forged = await w.slack.submitView(view, { askgate_reason: 'no' }, { private_metadata: '{"t":"x"}' });
    expect(forged.body.errors).toEqual({
      askgate_reason: 'This form is not valid any more. Close it and tap Answer again.',
    });
    expect((await record(w, id)).status).toBe('pending');
  });
});

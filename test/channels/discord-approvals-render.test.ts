// The content of an approval's Discord message (issue 36): within 2000 characters whatever the
// arguments and the preview, the hash always shown, what is cut marked with a visible "…", user text
// literal (escaped outside code blocks, fences kept from closing a block).
import { describe, expect, it } from 'vitest';
import { approvalContent, codeBlock } from '../../src/channels/discord/approval-render.js';
import { escapeText, visibleText } from '../../src/channels/discord/render.js';
import type { ApprovalView } from '../../src/core/approval/approval-view.js';
import { decisionModal, readDecisionModal, shownArguments } from '../../src/channels/discord/approval-modal.js';
import { actionHash } from '../../src/app/action-hash.js';
import { LOCALES } from '../../src/core/i18n/index.js';
import { modalErrors } from '../fakes/discord-modals.js';

const view = (over: Partial<ApprovalView>): ApprovalView => ({
  action: 'send_email',
  arguments: { to: 'finance@example.com', subject: 'Q3 report' },
  summary: 'Send the Q3 report to finance',
  lines: ['to: finance@example.com', 'subject: Q3 report'],
  json: null,
  hash: '3fa9c2d1',
  decisions: ['approve', 'reject'],
  ...over,
});
const content = (v: ApprovalView, tail: string[] = []) => approvalContent(v, 'en', 2000, escapeText, tail);
const footer = '-# Tap a button, or reply to this message.';

describe('an approval drawn on Discord', () => {
  it('fits 2000 characters with the hash for every size of arguments and preview, cutting with "…"', () => {
    for (const args of [0, 100, 1500, 1990, 2500, 9000])
      for (const preview of [undefined, 10, 700, 1900, 5000]) {
        const v = view({
          lines: [`body: ${'x'.repeat(args)}`],
          ...(preview !== undefined ? { preview: 'y'.repeat(preview) } : {}),
        });
        const text = content(v, [footer]);
        const shape = `args ${args}, preview ${preview}`;
        expect(text.length, shape).toBeLessThanOrEqual(2000);
        expect(text, shape).toContain('Hash #3fa9c2d1');
        expect(text.endsWith(footer), shape).toBe(true);
        expect(text.startsWith('**Send the Q3 report to finance**\nAction: send\\_email\n'), shape).toBe(true);
        const whole = args + (preview ?? 0) < 1700;
        expect(text.includes('…'), shape).toBe(!whole);
        // Every code block opened is closed.
        expect((text.match(/```/g) ?? []).length % 2, shape).toBe(0);
      }
  });

  it('nested arguments are cut inside their code block, which still closes', () => {
    const json = JSON.stringify({ rows: Array.from({ length: 400 }, (_, i) => ({ i })) }, null, 2);
    const text = content(view({ lines: null, json }));
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/```json\n\{\n {2}"rows": \[[^]*\n…\n```\nHash #3fa9c2d1$/);
  });

  it('shows user text literally: markdown escaped in lines, a fence in a preview cannot close its block', () => {
    const text = content(view({ lines: ['note: **not bold** <@123>'], preview: 'a\n```\nb' }));
    expect(visibleText(text)).toContain('note: **not bold** <@123>');
    expect(text).toContain('```\na\n`\u200b``\nb\n```');
    expect(codeBlock('abc', '', 5)).toBe('…');
  });

  it('its modals fit Discord in every shipped locale, for every decision but Approve', () => {
    const args = { to: 'finance@example.com', subject: 'Q3 report' };
    const v = view({ hash: actionHash('send_email', args).slice(7, 15) });
    for (const locale of LOCALES.keys())
      for (const decision of ['reject', 'request_changes', 'edit'] as const) {
        const modal = decisionModal(v, decision, 'token', locale);
        expect(modal, `${locale} ${decision}`).not.toBeNull();
        expect(modalErrors(modal!.toJSON()), `${locale} ${decision}`).toBeNull();
      }
    expect(decisionModal(v, 'approve', 'token', 'en')).toBeNull();
  });

  it('an edit form starts from the arguments exactly as proposed (a string "7" stays a string)', () => {
    const args = { zip: '02134', n: '7', m: 7, flag: 'true', on: true, none: null };
    const lines = Object.entries(args).map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`);
    const v = view({ action: 'ship', arguments: args, lines, hash: actionHash('ship', args).slice(7, 15) });
    expect(shownArguments(v)).toEqual(args);
    expect(decisionModal(v, 'edit', 'token', 'en')).not.toBeNull();
  });

  it('reads a submission: untrusted field ids are ignored, a key like __proto__ stays data', () => {
    const text = (value: string) => ({ type: 4, value });
    const fields = new Map([
      ['as:__proto__', text('x')],
      ['aj:n', text('2')],
      ['aj:word', text('two')],
      ['zz', text('ignored')],
    ]);
    const read = readDecisionModal(fields, 'edit') as { arguments: Record<string, unknown> };
    expect(Object.getPrototypeOf(read.arguments)).toBe(Object.prototype);
    expect(Object.entries(read.arguments)).toEqual([
      ['__proto__', 'x'],
      ['n', 2],
      ['word', 'two'],
    ]);
    expect(readDecisionModal(new Map([['j', text('[1')]]), 'edit')).toEqual({ problem: 'notJson' });
    expect(readDecisionModal(new Map([['r', text(' \n ')]]), 'reject')).toEqual({ problem: 'noReason' });
    expect(readDecisionModal(new Map([['r', text('freeze')]]), 'request_changes')).toEqual({ reason: 'freeze' });
  });
});

// The deadline line in every channel's renderer: the platform's own time token where it shows times
// in each reader's zone (Slack, Discord, Teams, Telegram), the ask's zone as text elsewhere (WhatsApp,
// email); escaped like any text; never in the final (outcome) message.
import { describe, expect, it } from 'vitest';
import { askRecord } from '../helpers/records.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import { storedApproval } from '../../src/core/approval/approval-schema.js';
import type { Question } from '../../src/core/schemas.js';
import * as telegram from '../../src/channels/telegram/render.js';
import * as slack from '../../src/channels/slack/render.js';
import * as discord from '../../src/channels/discord/render.js';
import * as whatsapp from '../../src/channels/whatsapp/render.js';
import * as email from '../../src/channels/email/render.js';
import { outcomeCard, promptCard } from '../../src/channels/teams/cards.js';

const AT = '2026-12-24T17:00:00.000Z';
const UNIX = Date.parse(AT) / 1000;
const CHOICE = { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'A' }, { label: 'B' }] };
const LINE = 'Open until Thu, Dec 24, 17:00 (Europe/Lisbon)';
const OUTCOME = { status: 'answered' as const, text: 'Answered: A — by Alice' };

const question = buildPromptView(askRecord([CHOICE as Question], { expiresAt: AT, timeZone: 'Europe/Lisbon' }));
const approval = buildPromptView(
  askRecord([], {
    expiresAt: AT,
    timeZone: 'Europe/Lisbon',
    approval: storedApproval({ action: 'deploy', arguments: { to: 'prod' } }, `sha256:${'ab'.repeat(32)}`),
  }),
);
const japanese = buildPromptView(
  askRecord([CHOICE as Question], { expiresAt: AT, timeZone: 'Asia/Tokyo', locale: 'ja' }),
);
/** A deadline no catalogue or zone can produce: markup in every part (a renderer must still escape it). */
const hostile: PromptView = {
  ...question,
  deadline: { ...question.deadline!, before: '<!channel> *b* ', when: 'x|y>z <@U1>', after: ' &amp; _a_ {{DATE(x)}}' },
};
const without: PromptView = (({ deadline: _d, ...rest }) => rest)(question);

describe('the deadline line on every channel', () => {
  it('core gives every renderer the same data', () => {
    expect(question.deadline).toMatchObject({ line: LINE, unix: UNIX, expiresAt: '2026-12-24T17:00:00Z' });
    expect(approval.deadline?.line).toBe(LINE);
  });

  it('Telegram: a date_time entity over the time (the reader’s zone), its text the ask’s zone; before the instructions, not in the body', () => {
    for (const view of [question, approval]) {
      const r = telegram.renderPrompt(view);
      const entity = r.entities.find((e) => e.type === 'date_time')!;
      expect(entity).toEqual({
        type: 'date_time',
        offset: r.text.indexOf('Thu, Dec 24'),
        length: 'Thu, Dec 24, 17:00 (Europe/Lisbon)'.length,
        unix_time: UNIX,
        date_time_format: 'wdt',
      });
      expect(r.text).toContain(`\n\n${LINE}\n\n${view.instructions}`);
      expect(r.body.text).not.toContain('Open until');
      expect(r.body.entities.some((e) => e.type === 'date_time')).toBe(false);
      expect(telegram.renderFinal(r.body, OUTCOME).text).not.toContain('Open until');
    }
    const ja = telegram.renderPrompt(japanese);
    const e = ja.entities.find((x) => x.type === 'date_time')!;
    expect(ja.text.slice(e.offset, e.offset + e.length)).toBe('12月25日(金) 02:00 (Asia/Tokyo)');
    expect(ja.text.slice(e.offset + e.length)).toMatch(/^まで受付中\n\n/);
    expect(telegram.renderPrompt(without).entities.some((x) => x.type === 'date_time')).toBe(false);
  });

  it('Slack: a <!date> token (the reader’s zone), its fallback the ask’s zone, in a context block; escaped; not in the final message', () => {
    for (const view of [question, approval]) {
      const { blocks } = slack.renderPrompt(view);
      const block = blocks.find((b) => b.block_id === 'askgate_deadline')!;
      expect(block).toEqual({
        type: 'context',
        block_id: 'askgate_deadline',
        elements: [
          {
            type: 'mrkdwn',
            text: `Open until <!date^${UNIX}^{date_short_pretty}, {time}|Thu, Dec 24, 17:00 (Europe/Lisbon)>`,
          },
        ],
      });
      // Under the question, above the instructions.
      expect(blocks.indexOf(block)).toBe(blocks.findIndex((b) => b.block_id === 'askgate_help') - 1);
      expect(JSON.stringify(slack.renderFinal(view, OUTCOME))).not.toContain('<!date');
    }
    expect(slack.deadlineText(hostile.deadline!)).toBe(
      `&lt;!channel&gt; *b* <!date^${UNIX}^{date_short_pretty}, {time}|x|y&gt;z &lt;@U1&gt;> &amp;amp; _a_ {{DATE(x)}}`,
    );
    expect(slack.renderPrompt(without).blocks.some((b) => b.block_id === 'askgate_deadline')).toBe(false);
  });

  it('Discord: <t:…:f> and the live relative <t:…:R> (the reader’s zone) before the instructions; escaped; not in the final message', () => {
    for (const view of [question, approval]) {
      const { content } = discord.renderPrompt(view);
      expect(content).toContain(`\n\nOpen until <t:${UNIX}:f> (<t:${UNIX}:R>)\n\n-# `);
      expect(discord.renderFinal(view, OUTCOME).content).not.toContain('<t:');
    }
    expect(discord.renderPrompt(japanese).content).toContain(`<t:${UNIX}:f> (<t:${UNIX}:R>)まで受付中`);
    expect(discord.deadlineContent(hostile)).toBe(
      `${discord.escapeText('<!channel> *b* ')}<t:${UNIX}:f> (<t:${UNIX}:R>)${discord.escapeText(' &amp; _a_ {{DATE(x)}}')}`,
    );
    // Once the two tags are taken out, no `<` is left unescaped (no mention, no tag of the text's own).
    const rest = discord.deadlineContent(hostile).replace(`<t:${UNIX}:f> (<t:${UNIX}:R>)`, '');
    expect(rest).not.toMatch(/(^|[^\\])</u);
    expect(discord.deadlineContent(without)).toBe('');
  });

  it('Teams: DATE()/TIME() of the RFC 3339 time (the reader’s zone); escaped; not on the outcome card', () => {
    const deadline = (view: PromptView) =>
      JSON.stringify(promptCard(view, { live: true }))
        .match(/"text":("(?:[^"\\]|\\.)*\{\{DATE(?:[^"\\]|\\.)*")/)
        ?.slice(1)
        .map((json) => JSON.parse(json) as string)[0];
    expect(deadline(question)).toBe('Open until {{DATE(2026-12-24T17:00:00Z, SHORT)}} {{TIME(2026-12-24T17:00:00Z)}}');
    expect(deadline(approval)).toBe(deadline(question));
    expect(deadline(hostile)).toBe(
      String.raw`\<\!channel\> \*b\* {{DATE(2026-12-24T17:00:00Z, SHORT)}} {{TIME(2026-12-24T17:00:00Z)}} \&amp; \_a\_ \{\{DATE\(x\)\}\}`,
    );
    expect(JSON.stringify(outcomeCard(OUTCOME, question))).not.toContain('{{DATE');
    expect(deadline(without)).toBeUndefined();
  });

  it('WhatsApp: the line as text in the ask’s zone, before the instructions', () => {
    expect(whatsapp.promptText(question, true)).toContain(`\n\n${LINE}\n\n${question.instructions}`);
    expect(whatsapp.promptText(without, true)).not.toContain('Open until');
  });

  it('email: the line in both parts, the HTML escaped', () => {
    const mail = email.renderPrompt(question, null);
    expect(mail.text).toContain(`\n\n${LINE}\n\n`);
    expect(mail.html).toContain(`<p>${LINE}</p>`);
    const bad = email.renderPrompt({ ...hostile, deadline: { ...hostile.deadline!, line: '<b>x</b> & y' } }, null);
    expect(bad.html).toContain('<p>&lt;b&gt;x&lt;/b&gt; &amp; y</p>');
    expect(email.renderPrompt(without, null).text).not.toContain('Open until');
  });
});

import { describe, expect, it } from 'vitest';
import { DiscordAPIError, RateLimitError } from 'discord.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { ChannelError } from '../../src/core/ports.js';
import type { Question } from '../../src/core/schemas.js';
import { escapeText, renderFinal, renderPrompt, visibleText } from '../../src/channels/discord/render.js';
import { NO_MENTIONS, toChannelError, validateLayout, type MessageJson } from '../../src/channels/discord/limits.js';
import { FakeDiscord } from '../fakes/discord-api.js';

const q = (n: number, options: number, multiSelect: boolean, size: 'short' | 'long'): Question => ({
  id: `q${n}`,
  ...(size === 'long' ? { header: 'H'.repeat(60) } : {}),
  question: size === 'long' ? `*${'Why '.repeat(250)}`.slice(0, 1000) : `Question ${n}?`,
  multiSelect,
  options: Array.from({ length: options }, (_, i) => ({
    label: size === 'long' ? `${i}${'_x*'.repeat(40)}`.slice(0, 100) : `Option ${i + 1}`,
    ...(size === 'long' ? { description: '`d`'.repeat(100) } : {}),
  })),
});

describe('Discord rendering', () => {
  it('every shape (1–3 questions × 2–4 options × multiSelect × short/long) passes the layout check and keeps every option', () => {
    for (const count of [1, 2, 3])
      for (const options of [2, 3, 4])
        for (const multi of [false, true])
          for (const size of ['short', 'long'] as const) {
            const questions = Array.from({ length: count }, (_, i) => q(i + 1, options, multi, size));
            const view = buildPromptView({ id: 'RenderAsk000001', version: 3, questions });
            const message = renderPrompt(view);
            expect(message.content.length).toBeLessThanOrEqual(2000);
            expect(message.allowed_mentions).toEqual({ parse: [] });
            const shown = visibleText(message.content);
            for (const question of questions)
              for (let i = 1; i <= options; i++)
                expect(shown).toMatch(
                  new RegExp(
                    `^${i}\\. ${(question as { options: { label: string }[] }).options[i - 1]!.label.slice(0, 8).replace(/[*]/g, '\\*')}`,
                    'm',
                  ),
                );
            expect(message.components.length).toBe(view.buttons ? 2 : 1); // options + Other/Skip, or Answer + Skip
            for (const row of message.components)
              for (const b of row.components) expect(b.label.length).toBeLessThanOrEqual(80);
          }
  });

  it('escapes markdown and mentions so user text renders literally', () => {
    for (const s of [
      '**bold** _it_ `code` ~~s~~ ||sp||',
      '<@&123> <@456> <#789> <t:1:R> @everyone',
      '# head\n> quote\n-# sub\n- item\n1. one',
      '[x](http://e.vil) \\*',
      'שלום\u202Eevil\u200B',
    ]) {
      expect(visibleText(escapeText(s))).toBe(s);
    }
    expect(escapeText('<@&123>')).toBe('\\<@&123>');
  });

  it('finalizing keeps the questions and options, shows the outcome instead of the instructions, and removes the buttons', () => {
    const view = buildPromptView({ id: 'RenderAsk000002', version: 1, questions: [q(1, 2, false, 'short')] });
    const outcome = { status: 'answered' as const, text: 'Answered: Option 1 — by @a_b' };
    const final = renderFinal(view, outcome);
    expect(final.components).toEqual([]);
    expect(final.allowed_mentions).toEqual({ parse: [] });
    expect(visibleText(final.content)).toContain('Question 1?\n1. Option 1\n2. Option 2');
    expect(visibleText(final.content)).toMatch(/\*\*Answered: Option 1 — by @a_b\*\*$/);
    expect(final.content).not.toContain('skip');
    const long = buildPromptView({
      id: 'RenderAsk000003',
      version: 1,
      questions: [1, 2, 3].map((n) => q(n, 4, true, 'long')),
    });
    const several = renderFinal(long, { status: 'answered', text: `Answered — by @x\n${'1. Q: a, b\n'.repeat(3)}` });
    expect(several.content.length).toBeLessThanOrEqual(2000);
    expect(visibleText(several.content)).toContain('Answered — by @x');
  });

  it('the layout check refuses what Discord would refuse, as a permanent error', () => {
    const button = (i: number) => ({ type: 2 as const, style: 1, label: `b${i}`, custom_id: `id${i}` });
    const ok: MessageJson = {
      content: 'hi',
      components: [{ type: 1, components: [button(1)] }],
      allowed_mentions: NO_MENTIONS,
    };
    expect(() => validateLayout(ok)).not.toThrow();
    const bad: MessageJson[] = [
      { ...ok, content: 'x'.repeat(2001) },
      { ...ok, components: Array.from({ length: 6 }, (_, r) => ({ type: 1 as const, components: [button(r)] })) },
      { ...ok, components: [{ type: 1, components: Array.from({ length: 6 }, (_, i) => button(i)) }] },
      { ...ok, components: [{ type: 1, components: [{ ...button(1), label: 'l'.repeat(81) }] }] },
      { ...ok, components: [{ type: 1, components: [{ ...button(1), custom_id: 'c'.repeat(101) }] }] },
      { ...ok, components: [{ type: 1, components: [button(1), button(1)] }] },
      { ...ok, allowed_mentions: { parse: ['everyone'] as never[] } },
    ];
    for (const m of bad)
      expect(() => validateLayout(m)).toThrow(expect.objectContaining({ permanent: true, name: 'ChannelError' }));
  });

  it('maps Discord errors: 429 retries after retry_after, refusals are permanent, 5xx and network retry', () => {
    const apiError = (status: number, code: number) =>
      new DiscordAPIError({ code, message: 'x' }, code, status, 'POST', '/x', { body: undefined, files: undefined });
    const limited = new RateLimitError({
      global: false,
      method: 'POST',
      url: '/x',
      route: '/channels/:id/messages',
      majorParameter: '1',
      hash: 'h',
      limit: 5,
      timeToReset: 7050,
      retryAfter: 7050,
      sublimitTimeout: 0,
      scope: 'user',
    });
    expect(toChannelError(limited, 'send')).toMatchObject({ permanent: false, retryAfterMs: 7050 });
    for (const code of [50001, 10003, 50007, 50013, 10008, 50035])
      expect(
        toChannelError(apiError(code === 10003 || code === 10008 ? 404 : code === 50035 ? 400 : 403, code), 'send')
          .permanent,
      ).toBe(true);
    expect(toChannelError(apiError(502, 0), 'send').permanent).toBe(false);
    expect(toChannelError(new TypeError('fetch failed'), 'send')).toBeInstanceOf(ChannelError);
    expect(toChannelError(new TypeError('fetch failed'), 'send').permanent).toBe(false);
  });

  it('the fake answers an over-limit layout with 50035', async () => {
    const fake = await FakeDiscord.start();
    try {
      const chat = fake.addTextChannel();
      const rows = Array.from({ length: 6 }, (_, r) => ({
        type: 1,
        components: [{ type: 2, style: 1, label: 'l'.repeat(81), custom_id: `c${r}` }],
      }));
      const res = await fetch(`${fake.apiUrl}/v10/channels/${chat}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${fake.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'x', components: rows, allowed_mentions: { parse: [] } }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 50035, errors: { components: expect.any(String) } });
    } finally {
      await fake.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { user as discordUser } from '../fakes/discord-payloads.js';
import { eventually } from '../helpers/http.js';
import {
  askAndDeliver,
  discordButtons,
  discordTap,
  newTgUser,
  settled,
  slackMessage,
  slackValues,
  startSecurityWorld,
  tgButtons,
  tgTap,
  type SecurityWorld,
} from './security-world.js';

// Markup and mention injection through every user-supplied string (question, header, option
// labels, descriptions, free-text replies): rendered literally, never a ping, a link or a parse error.

let w: SecurityWorld;

beforeAll(async () => {
  w = await startSecurityWorld();
});

afterAll(async () => {
  await w?.close();
});

const HOSTILE = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U0001>',
  '<!subteam^S0123>',
  '<#C0001>',
  '<http://evil.example|click>',
  '&lt;!here&gt;',
  '@everyone',
  '@here',
  '<@123456789012345678>',
  '<@&123456789012345678>',
  '<#123456789012345678>',
  '<t:0:R>',
  '**bold** __u__ ||spoiler||',
  '[link](http://evil.example)',
  '# heading',
  '> quote',
  '-# small',
  '`code` ```block```',
  '<b>x</b><a href="http://evil">y</a>',
  '*_[]()~>#+-=|{}.!\\',
  '&amp; &lt; &gt;',
];
// Bidi overrides and zero-width characters are refused at creation (test/unit/text.test.ts,
// test/integration/text-and-keys.test.ts), so they cannot be part of these asks.

/** Three asks that carry every hostile string: a single question with buttons, then two of several questions. */
function hostileAsks(): Record<string, unknown>[] {
  const labels = (from: number) =>
    [0, 1, 2, 3].map((i) => ({
      label: `${HOSTILE[(from + i) % HOSTILE.length]} ${i + 1}`,
      description: HOSTILE[(from + i + 4) % HOSTILE.length],
    }));
  const single = {
    questions: [
      { id: 'pick', header: HOSTILE[0]!, question: `Deploy? ${HOSTILE.slice(0, 8).join(' ')}`, options: labels(0) },
    ],
  };
  const several = (offset: number) => ({
    questions: [0, 1, 2].map((q) => ({
      id: `q${q + 1}`,
      header: HOSTILE[(offset + q) % HOSTILE.length]!.slice(0, 60),
      question: HOSTILE.slice(offset % HOSTILE.length)
        .concat(HOSTILE)
        .slice(0, 10)
        .join(' | '),
      options: labels(offset + q * 4),
    })),
  });
  return [single, several(4), several(16)];
}

/** Every string inside a value (keys excluded). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('Slack: no raw <!channel>, <!here>, <@U…>, <#C…> or <http…> reaches any text field', () => {
  it('prompts, notices, partial prompts and final edits escape every hostile string', async () => {
    const calls = w.slack.calls.length;
    const [single, ...rest] = hostileAsks();
    const first = await askAndDeliver(w, { channel: 'slack', chat: 'C0001' }, single);
    const others = await Promise.all(rest.map((extra) => askAndDeliver(w, { channel: 'slack', chat: 'C0001' }, extra)));
    const message = slackMessage(w, first.chat, first.messageId);
    await w.slackIn.postInteractive(w.slackIn.blockAction(message, slackValues(message)[3]!, 'U0001'));
    // A partial answer (one line of three) makes askgate quote the open questions in the thread.
    await w.slackIn.postEvent(
      w.slackIn.messageEvent({
        channel: 'C0001',
        user: 'U0002',
        text: '1: <!channel> own words',
        threadTs: others[0]!.messageId,
      }),
    );
    await w.slackIn.postEvent(
      w.slackIn.messageEvent({
        channel: 'C0001',
        user: 'U0002',
        text: '<!here> 1\n2\n3',
        threadTs: others[1]!.messageId,
      }),
    );
    for (const ask of [first, others[1]!]) await settled(w, ask.id);
    await eventually(async () =>
      w.slack.callsOf('chat.postMessage').some((c) => String(c.params.text).includes('Still open')),
    );
    const writes = w.slack.calls
      .slice(calls)
      .filter((c) => ['chat.postMessage', 'chat.update', 'chat.postEphemeral'].includes(c.method));
    expect(writes.map((c) => c.method)).toEqual(
      expect.arrayContaining(['chat.postMessage', 'chat.update', 'chat.postEphemeral']),
    );
    // askgate's own deadline token (`<!date^unix^format|fallback>`, core's digits and words) is left out.
    const ownDate = /<!date\^\d+\^\{date_short_pretty\}, \{time\}\|[^<>]*>/g;
    const raw = writes
      .flatMap((c) => strings(c.params))
      .map((s) => s.replace(ownDate, ''))
      .filter((s) => /<[!@#]|<https?:|<mailto:/i.test(s));
    expect(raw).toEqual([]);
    // Shown literally: the label a person tapped is the label the agent gets.
    expect((await w.api.get(`/v1/asks/${first.id}`)).body.result.answers.pick).toEqual([`${HOSTILE[3]} 4`]);
  });
});

describe('Discord: every send, edit and follow-up carries allowed_mentions {parse: []}; markup is escaped', () => {
  it('prompts, notices and final edits', async () => {
    const alice = discordUser('391111111111111111', 'alice_inj');
    const calls = w.discord.calls.length;
    const [single, ...rest] = hostileAsks();
    const first = await askAndDeliver(w, { channel: 'discord', chat: w.discordChats[0], users: [alice.id] }, single);
    const others = await Promise.all(
      rest.map((extra) => askAndDeliver(w, { channel: 'discord', chat: w.discordChats[0] }, extra)),
    );
    const { msg, ids } = discordButtons(w, first.messageId);
    const labels = (msg.components as { components: { label: string }[] }[]).flatMap((r) =>
      r.components.map((c) => c.label),
    );
    expect(labels.slice(0, 4)).toEqual(
      (single!.questions as { options: { label: string }[] }[])[0]!.options.map((o) => o.label),
    );
    expect(await discordTap(w, first.messageId, ids[0]!, discordUser('392222222222222222', 'mallory_inj'))).toMatch(
      /^This question is for <@391111111111111111>$/,
    );
    expect(await discordTap(w, first.messageId, ids[1]!, alice)).toBe('Answer recorded');
    w.discord.say(w.discordChats[0], alice, '@everyone <@&123456789012345678> 1', { replyTo: others[0]!.messageId });
    w.discord.say(w.discordChats[0], alice, '1\n2\n@here', { replyTo: others[1]!.messageId });
    for (const ask of [first, others[1]!]) await settled(w, ask.id);
    const writes = w.discord.calls
      .slice(calls)
      .filter(
        (c) =>
          c.method !== 'GET' &&
          (/^\/channels\/\d+\/messages/.test(c.path) ||
            c.path.startsWith('/webhooks/') ||
            (c.path.startsWith('/interactions/') && c.body?.data)),
      );
    expect(writes.length).toBeGreaterThanOrEqual(8);
    for (const c of writes) {
      const body = c.path.startsWith('/interactions/') ? c.body.data : c.body;
      expect({ path: c.path, allowed: body.allowed_mentions }).toEqual({ path: c.path, allowed: { parse: [] } });
      // Every '<' of user text is escaped; only askgate's own "<@id>" of a notice and its deadline's
      // "<t:unix:f>" / "<t:unix:R>" timestamps remain.
      const content = String(body.content ?? '')
        .replace(/<@\d{17,20}>/g, '')
        .replace(/<t:\d+:[fR]>/g, '');
      expect({ path: c.path, unescaped: content.match(/(^|[^\\])<[^\s]*/g) ?? [] }).toEqual({
        path: c.path,
        unescaped: [],
      });
    }
  });
});

describe('Telegram: plain text (no parse_mode), bold and deadline entities only, labels literal', () => {
  it('prompts, replies and final edits', async () => {
    const u = newTgUser(w, 'Inject');
    const calls = w.tg.calls.length;
    const [single, ...rest] = hostileAsks();
    const first = await askAndDeliver(w, { channel: 'telegram', chat: String(u.id) }, single);
    const others = await Promise.all(
      rest.map((extra) => askAndDeliver(w, { channel: 'telegram', chat: String(u.id) }, extra)),
    );
    const labels = w.tg.message(first.chat, first.messageId)!.reply_markup;
    expect(JSON.stringify(labels)).toContain(JSON.stringify(`${HOSTILE[1]} 2`).slice(1, -1));
    expect(await tgTap(w, first.chat, first.messageId, tgButtons(w, first.chat, first.messageId)[1]!, u)).toBe(
      'Answer recorded',
    );
    w.tg.say(u.id, '1: <b>own</b> *words*', u, Number(others[0]!.messageId));
    w.tg.say(u.id, '1\n2\n<i>3</i>', u, Number(others[1]!.messageId));
    for (const ask of [first, others[1]!]) await settled(w, ask.id);
    const writes = w.tg.calls
      .slice(calls)
      .filter((c) => ['sendMessage', 'editMessageText', 'answerCallbackQuery'].includes(c.method));
    expect(writes.every((c) => c.ok)).toBe(true);
    expect(writes.filter((c) => c.params.parse_mode !== undefined)).toEqual([]);
    const entityTypes = new Set(writes.flatMap((c) => (c.params.entities ?? []).map((e: { type: string }) => e.type)));
    // Bold, and the deadline's date_time (askgate's own time, in the reader's zone).
    expect([...entityTypes].filter((t) => t !== 'bold' && t !== 'date_time')).toEqual([]);
    const shown = w.tg.message(first.chat, first.messageId)!.text;
    for (const s of HOSTILE.slice(0, 8)) expect(shown).toContain(s);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { user as discordUser, type ApiUser } from '../fakes/discord-payloads.js';
import type { FakeUser } from '../fakes/telegram-api.js';
import { eventually } from '../helpers/http.js';
import {
  askAndDeliver,
  discordButtons,
  discordTap,
  expectOnlyNotes,
  newTgUser,
  runId,
  settled,
  slackMessage,
  slackValues,
  startSecurityWorld,
  tgButtons,
  tgTap,
  type SecurityWorld,
} from './security-world.js';

// Forged, stale and replayed button data, and taps and replies by the wrong person, on all three
// platforms. Button data is `<askId>.<version>.<choice>`, unsigned: every check is against the record.

let w: SecurityWorld;
let tg: { alice: FakeUser; mallory: FakeUser; chats: [string, string] };
const dc = {
  alice: discordUser('371111111111111111', 'alice_btn'),
  mallory: discordUser('372222222222222222', 'mallory_btn'),
};

beforeAll(async () => {
  w = await startSecurityWorld();
  const alice = newTgUser(w, 'AliceBtn');
  const mallory = newTgUser(w, 'MalloryBtn');
  tg = {
    alice,
    mallory,
    chats: [String(w.tg.addGroup(-1_000_000_701, 'ops').id), String(w.tg.addGroup(-1_000_000_702, 'dev').id)],
  };
});

afterAll(async () => {
  await w?.close();
});

type Delivered = Awaited<ReturnType<typeof askAndDeliver>>;

/** One platform as the tests drive it: where to ask, who taps, and what a tap is told. */
interface Platform {
  name: 'telegram' | 'slack' | 'discord';
  to(chat: 0 | 1, owner?: boolean): object;
  tokens(ask: Delivered): string[];
  /** Taps `data` on the ask's message as the owner (or someone else) and returns the notice. */
  tap(ask: Delivered, data: string, stranger?: boolean): Promise<string | null>;
  /** A reply to the ask's message; returns the notice askgate sent back. */
  reply(ask: Delivered, text: string, stranger?: boolean): Promise<string | null>;
}

async function slackNotice(user: string, act: () => Promise<unknown>): Promise<string | null> {
  const before = w.slack.ephemeralsFor(user).length;
  await act();
  return eventually(
    async () => w.slack.ephemeralsFor(user).length > before && w.slack.ephemeralsFor(user).at(-1)!.text,
    3000,
  ).catch(() => null);
}
const unescape = (s: string | null) => s?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&') ?? null;

const platforms: Platform[] = [
  {
    name: 'telegram',
    to: (chat, owner = true) => ({
      channel: 'telegram',
      chat: tg.chats[chat],
      ...(owner ? { users: [String(tg.alice.id)] } : {}),
    }),
    tokens: (ask) => tgButtons(w, ask.chat, ask.messageId),
    tap: (ask, data, stranger) => tgTap(w, ask.chat, ask.messageId, data, stranger ? tg.mallory : tg.alice),
    async reply(ask, text, stranger) {
      const mine = w.tg.say(ask.chat, text, stranger ? tg.mallory : tg.alice, ask.messageId);
      const answer = await eventually(
        async () => w.tg.chatMessages(ask.chat).find((m) => m.from.is_bot && m.reply_to === mine.message_id),
        3000,
      ).catch(() => null);
      return answer?.text ?? null;
    },
  },
  {
    name: 'slack',
    to: (chat, owner = true) => ({
      channel: 'slack',
      chat: ['C0001', 'C0002'][chat],
      ...(owner ? { users: ['U0001'] } : {}),
    }),
    tokens: (ask) => slackValues(slackMessage(w, ask.chat, ask.messageId)),
    tap: async (ask, data, stranger) => {
      const user = stranger ? 'U0666' : 'U0001';
      const message = slackMessage(w, ask.chat, ask.messageId);
      const payload = w.slackIn.blockAction(message, slackValues(message)[0]!, user) as {
        actions: { value: string }[];
      };
      payload.actions[0]!.value = data;
      return unescape(await slackNotice(user, () => w.slackIn.postInteractive(payload)));
    },
    reply: async (ask, text, stranger) => {
      const user = stranger ? 'U0666' : 'U0001';
      return unescape(
        await slackNotice(user, () =>
          w.slackIn.postEvent(w.slackIn.messageEvent({ channel: ask.chat, user, text, threadTs: ask.messageId })),
        ),
      );
    },
  },
  {
    name: 'discord',
    to: (chat, owner = true) => ({
      channel: 'discord',
      chat: w.discordChats[chat],
      ...(owner ? { users: [dc.alice.id] } : {}),
    }),
    tokens: (ask) => discordButtons(w, ask.messageId).ids,
    tap: (ask, data, stranger) => discordTap(w, ask.messageId, data, stranger ? dc.mallory : dc.alice),
    async reply(ask, text, stranger) {
      const mine = w.discord.say(ask.chat, (stranger ? dc.mallory : dc.alice) as ApiUser, text, {
        replyTo: ask.messageId,
      });
      const answer = await eventually(
        async () =>
          w.discord
            .sentTo(ask.chat)
            .find((m) => (m.message_reference as { message_id?: string } | undefined)?.message_id === mine),
        3000,
      ).catch(() => null);
      return answer ? answer.content.replace(/\\([^0-9A-Za-z\s])/g, '$1') : null;
    },
  },
];

const NOT_OPEN = 'This question is no longer open';
const NOT_VALID = 'This button is not valid';

describe.each(platforms)('$name: forged, stale and replayed button data is refused and changes nothing', (p) => {
  it("a foreign ask's token, a wrong version, an index out of range, garbage", async () => {
    const mine = await askAndDeliver(w, p.to(0));
    const theirs = await askAndDeliver(w, p.to(1, false));
    const [askId, version] = p.tokens(mine)[0]!.split('.') as [string, string];
    const before = await w.snapshot([mine.id, theirs.id]);
    const forged: [string, string][] = [
      [p.tokens(theirs)[0]!, NOT_OPEN], // a valid token of an ask in another chat, tapped here
      [`${askId}.${Number(version) + 1}.1`, NOT_OPEN],
      [`${askId}.${Number(version) + 7}.s`, NOT_OPEN],
      [`${askId}.0.1`, NOT_VALID],
      [`${askId}.${version}.3`, NOT_VALID], // two options only
      [`${askId}.${version}.4`, NOT_VALID],
      [`${askId}.${version}.5`, NOT_VALID],
      [`${askId}.${version}.0`, NOT_VALID],
      [`${askId}.${version}.1.1`, NOT_VALID],
      [`${askId.slice(0, -1)}${askId.endsWith('X') ? 'Y' : 'X'}.${version}.1`, NOT_OPEN], // one character off
      [`${askId}.${version}`, NOT_VALID],
      ['x', NOT_VALID],
    ];
    for (const [data, notice] of forged) expect({ data, notice: await p.tap(mine, data) }).toEqual({ data, notice });
    expect(await w.snapshot([mine.id, theirs.id])).toEqual(before);
  });

  it('a valid token replayed from another chat (on a message there) is refused; both asks unchanged', async () => {
    const mine = await askAndDeliver(w, p.to(0));
    const there = await askAndDeliver(w, p.to(1));
    const before = await w.snapshot([mine.id, there.id]);
    for (const token of p.tokens(mine)) expect(await p.tap(there, token)).toBe(NOT_OPEN);
    expect(await w.snapshot([mine.id, there.id])).toEqual(before);
  });

  it('a token of a resolved ask and of a superseded version: told so, the records keep their outcome', async () => {
    const done = await askAndDeliver(w, p.to(0));
    expect(await p.tap(done, p.tokens(done)[1]!)).toBe('Answer recorded');
    const resolved = await settled(w, done.id);
    for (const token of p.tokens(done))
      expect(await p.tap(done, token)).toMatch(/^This question was already answered by /);
    expectOnlyNotes(resolved, await w.raw(done.id), ['already_resolved']);

    const run = runId('supersede');
    const v1 = await askAndDeliver(w, p.to(0), { runId: run });
    const v2 = await askAndDeliver(w, p.to(0), { runId: run });
    const old = await settled(w, v1.id);
    const current = await w.raw(v2.id);
    expect(JSON.parse(old.doc).result).toMatchObject({ status: 'no_answer', reason: 'superseded' });
    for (const token of p.tokens(v1)) expect(await p.tap(v1, token)).toBe('This question was replaced by a newer one');
    // v1's tokens shown on v2's message (an old keyboard re-sent by a client) do not answer v2.
    for (const token of p.tokens(v1)) expect(await p.tap(v2, token)).toBe(NOT_OPEN);
    expectOnlyNotes(old, await w.raw(v1.id), ['already_resolved']);
    expect(await w.raw(v2.id)).toEqual(current);
  });
});

describe.each(platforms)(
  '$name: taps and replies by someone not in `users` → a notice, the record keeps its state',
  (p) => {
    it('every button and a reply by the wrong person are refused; the addressee then answers', async () => {
      const ask = await askAndDeliver(w, p.to(0));
      const before = await w.raw(ask.id);
      for (const token of p.tokens(ask)) expect(await p.tap(ask, token, true)).toMatch(/^This question is for /);
      expect(await p.reply(ask, '2', true)).toMatch(/^This question is for /);
      expect(await p.reply(ask, 'my own words', true)).toMatch(/^This question is for /);
      expectOnlyNotes(before, await w.raw(ask.id), ['forbidden']);
      expect(await p.tap(ask, p.tokens(ask)[0]!)).toBe('Answer recorded');
      expect(JSON.parse((await w.raw(ask.id)).doc).result).toMatchObject({
        status: 'answered',
        answers: { env: ['Staging'] },
      });
    });
  },
);

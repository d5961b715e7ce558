import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { user as discordUser } from '../fakes/discord-payloads.js';
import { eventually } from '../helpers/http.js';
import { sleep } from '../helpers/wait.js';
import {
  askAndDeliver,
  discordButtons,
  discordTap,
  newTgUser,
  slackMessage,
  slackValues,
  startSecurityWorld,
  tgButtons,
  tgTap,
  type SecurityWorld,
} from './security-world.js';
import { seeded } from '../helpers/seeded.js';

// Seeded fuzzing of button data: a few hundred forged callback_data strings of 1–64 bytes on
// Telegram (any client can send any data for a message it sees), fewer on Slack and Discord.

let w: SecurityWorld;

beforeAll(async () => {
  w = await startSecurityWorld();
});

afterAll(async () => {
  await w?.close();
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ODD = ['\u0000', '\u200b', '\u202e', '\ufeff', ' ', '\n', '\t', '．', '１', 'é', '🙂'];

/** Cuts a string (never inside a character) to at most `max` UTF-8 bytes. */
function fitBytes(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

/** `count` forged button data strings of 1–`maxBytes` UTF-8 bytes, none equal to a `valid` one. */
function forgedData(seed: number, count: number, valid: string[], maxBytes = 64): string[] {
  const r = seeded(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!;
  const chars = (alphabet: string, n: number) =>
    Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
  const base = valid[0]!;
  const [askId, version] = base.split('.') as [string, string];
  const makers: Array<() => string> = [
    () => Buffer.from(Array.from({ length: 1 + int(64) }, () => int(256))).toString('utf8'),
    () => Buffer.from(Array.from({ length: 1 + int(64) }, () => int(256))).toString('latin1'),
    () => chars(Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join(''), 1 + int(64)),
    () =>
      `${chars(BASE62, 12 + int(13))}.${pick([version, '0', '-1', String(int(1e9)), '1e3'])}.${pick(['1', '2', '3', '4', 'o', 's', 'x', ''])}`,
    () => {
      const i = int(base.length);
      const c = String.fromCharCode(32 + int(95));
      return pick([
        base.slice(0, i) + c + base.slice(i + 1),
        base.slice(0, i) + c + base.slice(i),
        base.slice(0, i) + base.slice(i + 1),
      ]);
    },
    () => (r() < 0.5 ? pick(ODD) + pick(valid) : pick(valid) + pick(ODD)),
    () => pick(valid).replace(/[0-9]/, (d) => String.fromCharCode(0xff10 + Number(d))),
    () => `${askId.toLowerCase()}.${version}.${pick(['1', '2', 'o', 's'])}`,
    () => `${askId}.${version}.${pick(['1', '2'])}`.split('').reverse().join(''),
  ];
  const out = new Set<string>();
  while (out.size < count) {
    const data = fitBytes(makers[int(makers.length)]!(), maxBytes);
    if (data.length > 0 && !valid.includes(data)) out.add(data);
  }
  return [...out];
}

const REFUSED = /^(This button is not valid|This question is no longer open)$/;

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

describe('button data fuzzing (seeded)', () => {
  it('Telegram: 300 forged callback_data strings of 1–64 bytes → refused, the ask and the chat untouched', async () => {
    const u = newTgUser(w, 'Fuzzed');
    const ask = await askAndDeliver(w, { channel: 'telegram', chat: String(u.id), users: [String(u.id)] });
    const valid = tgButtons(w, ask.chat, ask.messageId);
    const before = await w.raw(ask.id);
    const messages = w.tg.chatMessages(ask.chat).length;
    const cases = forgedData(0x5eed_0001, 300, valid);
    expect(cases.every((d) => Buffer.byteLength(d) >= 1 && Buffer.byteLength(d) <= 64)).toBe(true);
    const toasts = new Map<string, string | null>();
    await inBatches(cases, 25, async (data) => void toasts.set(data, await tgTap(w, ask.chat, ask.messageId, data, u)));
    const wrong = [...toasts].filter(([, toast]) => toast === null || !REFUSED.test(toast));
    expect(wrong.map(([d, t]) => ({ index: cases.indexOf(d), data: JSON.stringify(d), toast: t }))).toEqual([]);
    await sleep(200);
    expect(await w.raw(ask.id)).toEqual(before);
    expect(w.tg.chatMessages(ask.chat)).toHaveLength(messages);
    expect(await tgTap(w, ask.chat, ask.messageId, valid[0]!, u)).toBe('Answer recorded');
  });

  it('Telegram: a callback with no message (inline-mode shape) carrying a valid token is refused', async () => {
    const u = newTgUser(w, 'Inline');
    const ask = await askAndDeliver(w, { channel: 'telegram', chat: String(u.id), users: [String(u.id)] });
    const before = await w.raw(ask.id);
    const queryId = `inline-${Date.now()}`;
    w.tg.pushUpdate({
      callback_query: {
        id: queryId,
        from: u,
        inline_message_id: 'AAAAAgAAAAAAAAAB',
        chat_instance: '7',
        data: tgButtons(w, ask.chat, ask.messageId)[0],
      },
    });
    await eventually(async () => w.tg.webhookLog.some((l) => l.update_id === w.tg.pushed.at(-1).update_id), 3000);
    await sleep(300);
    expect(await w.raw(ask.id)).toEqual(before);
  });

  it('Slack: 80 forged action values → refused, the ask untouched', async () => {
    const ask = await askAndDeliver(w, { channel: 'slack', chat: 'C0001', users: ['U0001'] });
    const message = slackMessage(w, ask.chat, ask.messageId);
    const valid = slackValues(message);
    const before = await w.raw(ask.id);
    const cases = forgedData(0x5eed_0002, 80, valid, 200);
    const seen = w.slack.ephemeralsFor('U0001').length;
    await inBatches(cases, 20, async (value) => {
      const payload = w.slackIn.blockAction(message, valid[0]!, 'U0001') as { actions: { value: string }[] };
      payload.actions[0]!.value = value;
      expect((await w.slackIn.postInteractive(payload)).status).toBe(200);
    });
    const notices = await eventually(
      async () =>
        w.slack.ephemeralsFor('U0001').length - seen === cases.length && w.slack.ephemeralsFor('U0001').slice(seen),
      10_000,
    );
    expect(notices.filter((n) => !REFUSED.test(n.text))).toEqual([]);
    expect(await w.raw(ask.id)).toEqual(before);
  });

  it('Discord: 80 forged custom_ids → refused, the ask untouched', async () => {
    const alice = discordUser('381111111111111111', 'alice_fuzz');
    const ask = await askAndDeliver(w, { channel: 'discord', chat: w.discordChats[0], users: [alice.id] });
    const valid = discordButtons(w, ask.messageId).ids;
    const before = await w.raw(ask.id);
    const cases = forgedData(0x5eed_0003, 80, valid, 100);
    const notices: (string | null)[] = [];
    await inBatches(cases, 10, async (id) => void notices.push(await discordTap(w, ask.messageId, id, alice)));
    expect(notices.filter((n) => n === null || !REFUSED.test(n))).toEqual([]);
    expect(await w.raw(ask.id)).toEqual(before);
  });
});

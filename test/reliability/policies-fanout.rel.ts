import { afterAll, describe, expect, it } from 'vitest';
import { Agents } from './harness/agents.js';
import { DiscordRig } from './harness/discord-rig.js';
import { SlackRig } from './harness/slack-rig.js';
import { TelegramRig, type Posted } from './harness/telegram-rig.js';
import { World, writeSummary, type RowSummary } from './harness/world.js';
import type { ApiMessage, ApiUser } from '../fakes/discord-payloads.js';
import type { FakeMessage } from '../fakes/slack-api.js';
import type { FakeUser } from '../fakes/telegram-api.js';
import { policyAsk, telegramPostedAt, until, type PolicyRecord } from './policies-kit.js';

const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NAME: Record<string, string> = { telegram: 'Telegram', slack: 'Slack', discord: 'Discord' };
const LABEL: Record<string, string> = { telegram: 'Staging', slack: 'Production', discord: 'Canary' };

afterAll(() => writeSummary('policies-fanout', rows));

interface FanOut {
  askId: string;
  kind: 'race' | 'agree' | 'slack-only' | 'timeout';
  tgUser: FakeUser;
  slackUser: string;
  slackChat: string;
  discordUser: ApiUser;
  tg?: Posted;
  slack?: FakeMessage;
  discord?: ApiMessage;
}

describe('P2: duplicate taps across platforms on fan-out asks (Telegram polling + Slack HTTP + Discord gateway, one askgate)', () => {
  it('concurrent and re-sent taps on three platforms: one terminal transition, every message edited once to the outcome naming where, late taps told where', async () => {
    const world = await World.create({ name: 'policies-fanout', row: 'P2' });
    const tg = await TelegramRig.start(world.history);
    const slack = await SlackRig.start(world.history);
    const discord = await DiscordRig.start(world.history);
    const discordChat = discord.fake.addTextChannel();
    const node = world.node('A', { ...tg.env(), ...slack.env(), ...discord.env() });
    const agents = new Agents(world.history, () => world.nodes);
    try {
      await node.start();
      const injector = slack.injector(node.url);
      const made: FanOut[] = [];
      const kinds = [
        ...Array<'race'>(16).fill('race'),
        ...Array<'agree'>(4).fill('agree'),
        'slack-only',
        'timeout',
        'timeout',
      ] as const;
      for (const [i, kind] of kinds.entries()) {
        const tgUser = tg.fake.addUser(800_000 + i, `Tg${i}`, { username: `tg${i}` });
        const slackUser = `U8${String(i).padStart(6, '0')}`;
        const slackChat = `C8${String(i).padStart(6, '0')}`;
        slack.fake.channels.add(slackChat);
        const discordUser = discord.newUser();
        const users = [String(tgUser.id), slackUser, discordUser.id];
        const { askId } = await policyAsk(
          () => node.api(),
          world.history,
          {
            runId: `p2-${i}`,
            timeoutSeconds: kind === 'timeout' ? 5 : 60,
            to: [
              { channel: 'telegram', chat: String(tgUser.id), users: [String(tgUser.id)] },
              { channel: 'slack', chat: slackChat, users: [slackUser] },
              { channel: 'discord', chat: discordChat, users: [discordUser.id] },
            ],
            ...(kind === 'agree' ? { agree: 2 } : {}),
          },
          { platform: 'fan-out', users, extra: { kind } },
        );
        // The Slack rig names ephemeral notices and edits by channel (one channel per ask).
        (slack as unknown as { channelAsk: Map<string, string> }).channelAsk.set(slackChat, askId);
        made.push({ askId, kind, tgUser, slackUser, slackChat, discordUser });
        agents.wait(askId);
      }
      const ids = made.map((m) => m.askId);

      // Every ask's three messages delivered.
      await until(
        async () => {
          const records = (await world.watch.getMany(ids)) as Map<string, PolicyRecord | null>;
          for (const m of made) {
            const r = records.get(m.askId) ?? null;
            const at = (channel: string) => r?.deliveries.findIndex((d) => d.channel === channel) ?? -1;
            m.tg ??= telegramPostedAt(tg.fake, r, at('telegram')) ?? undefined;
            const sm = r?.deliveries[at('slack')]?.message;
            const sl = sm ? slack.fake.message(sm.chat, sm.messageId) : undefined;
            if (sl && !m.slack) m.slack = structuredClone(sl);
            const dm = r?.deliveries[at('discord')]?.message;
            const dc = dm ? discord.fake.messages.get(dm.messageId) : undefined;
            if (dc && !m.discord) m.discord = structuredClone(dc);
          }
          return made.every((m) => m.tg && m.slack && m.discord);
        },
        45_000,
        'every fan-out message delivered',
        150,
      );

      // The race: a tap on each platform within ~30 ms, then each re-sent 1–3× within 400 ms.
      const work: Promise<unknown>[] = [];
      let copies = 0;
      for (const [i, m] of made.entries()) {
        if (m.kind === 'timeout') continue;
        if (m.kind === 'slack-only') {
          work.push(slack.tap(injector, m.askId, m.slack!, LABEL.slack!, m.slackUser));
          continue;
        }
        const resend = 1 + (i % 3);
        // Agreement asks: the three people tap the same option, so the second matching answer ends the ask.
        const label = (platform: string) => (m.kind === 'agree' ? 'Production' : LABEL[platform]!);
        const taps = [
          () => tg.tap(m.tg!, label('telegram'), m.tgUser, 'tap'),
          () => slack.tap(injector, m.askId, m.slack!, label('slack'), m.slackUser, 'tap'),
          () => discord.tap(m.askId, m.discord!, label('discord'), m.discordUser, 'tap'),
        ];
        // Telegram polls for its taps, so where it comes first it gets a 250 ms head start (every platform wins some).
        const order = [0, 1, 2].map((k) => (k + i) % 3);
        const lead = order[0] === 0 ? 250 : 0;
        for (const [n, k] of order.entries())
          work.push(sleep((n > 0 ? lead : 0) + ((n * 11 * i) % 31)).then(async () => void (await taps[k]!())));
        for (let c = 0; c < resend; c++) {
          copies += 3;
          work.push(
            sleep(60 + ((c * 137 + i * 29) % 340)).then(() => tg.tap(m.tg!, label('telegram'), m.tgUser, 'duplicate')),
          );
          work.push(
            sleep(60 + ((c * 89 + i * 41) % 340)).then(() =>
              slack.tap(injector, m.askId, m.slack!, label('slack'), m.slackUser, 'duplicate'),
            ),
          );
          work.push(
            sleep(60 + ((c * 53 + i * 17) % 340)).then(() =>
              discord.tap(m.askId, m.discord!, label('discord'), m.discordUser, 'duplicate'),
            ),
          );
        }
        await sleep(40);
      }
      await Promise.all(work);
      expect(await world.settle(ids, 45_000)).toBeGreaterThanOrEqual(0);

      // Late taps, once every message shows the outcome: each told where the ask was answered.
      const late = made.filter((m) => m.kind === 'race').slice(0, 6);
      const lateTg = late.map((m) => ({ m, tapId: tg.tap(m.tg!, LABEL.telegram!, m.tgUser, 'tap', { late: true }) }));
      for (const m of late)
        await slack.tap(injector, m.askId, m.slack!, LABEL.slack!, m.slackUser, 'tap', { late: true });
      const lateDc = late.map((m) => ({
        m,
        tapId: discord.tap(m.askId, m.discord!, LABEL.discord!, m.discordUser, 'tap', { late: true }),
      }));
      await sleep(2500);
      await agents.stop();

      const report = await world.verdict(ids, { graceMs: 5000 });
      const records = (await world.watch.getMany(ids)) as Map<string, PolicyRecord | null>;
      const problems: string[] = [];
      const winners: Record<string, number> = {};
      let finalEdits = 0;
      for (const m of made) {
        const r = records.get(m.askId)!;
        const result = r?.result;
        const winner = result?.answeredBy?.channel as string | undefined;
        if (m.kind === 'timeout') {
          if (result?.reason !== 'timeout')
            problems.push(`${m.askId} should have timed out: ${JSON.stringify(result)}`);
        } else if (result?.status !== 'answered' || !winner) {
          problems.push(`${m.askId} not answered: ${JSON.stringify(result)}`);
          continue;
        } else {
          winners[winner] = (winners[winner] ?? 0) + 1;
          if (m.kind === 'slack-only' && winner !== 'slack') problems.push(`${m.askId} answered in ${winner}`);
          const want = m.kind === 'agree' ? 'Production' : LABEL[winner];
          if (result.answers?.env?.[0] !== want) problems.push(`${m.askId}: answers do not match ${winner}`);
          if (m.kind === 'agree' && (result.responses?.length ?? 0) < 2)
            problems.push(`${m.askId}: agreed with ${JSON.stringify(result.responses)}`);
        }
        const expected = m.kind === 'timeout' ? 'Expired' : `Answered in ${NAME[winner!]} by`;
        const texts = {
          telegram: tg.fake.message(m.tg!.chat, m.tg!.messageId)?.text ?? '',
          slack: JSON.stringify(slack.fake.message(m.slackChat, m.slack!.ts) ?? ''),
          discord: JSON.stringify(discord.fake.messages.get(m.discord!.id) ?? ''),
        };
        for (const [platform, text] of Object.entries(texts)) {
          if (!text.includes(expected)) problems.push(`${m.askId}: the ${platform} message does not say "${expected}"`);
          else finalEdits++;
        }
        if (r.deliveries.length !== 3 || r.deliveries.some((d) => d.status !== 'sent' || d.finalized === 'no'))
          problems.push(`${m.askId}: deliveries ${JSON.stringify(r.deliveries.map((d) => [d.status, d.finalized]))}`);
      }
      // Each message had exactly one successful outcome edit (the checker counts > 1; here also 0). The messages of
      // the agreement asks are also edited for the tally while open: for them the text check above (the outcome
      // is what stays on screen) replaces the count, and the checker's "finalized n times" does not apply.
      const agreeMessages = new Set(
        made
          .filter((m) => m.kind === 'agree')
          .flatMap((m) => [
            `${m.tg!.chat}:${m.tg!.messageId}`,
            `${m.slackChat}:${m.slack!.ts}`,
            `${discordChat}:${m.discord!.id}`,
          ]),
      );
      const edits = world.history.read().filter((e) => e.type === 'edit' && e.result === 'ok');
      const okEdits = edits.filter((e) => !agreeMessages.has(String(e.data?.message))).length;
      const agreeEdits = edits.length - okEdits;
      const plain = made.filter((m) => m.kind !== 'agree').length * 3;
      if (okEdits !== plain) problems.push(`${okEdits} successful edits for ${plain} messages`);
      const violations = report.violations.filter(
        (v) =>
          !/^message (.+) was finalized \d+ times$/.test(v) || !agreeMessages.has(/^message (.+) was/.exec(v)![1]!),
      );

      // What the late taps were told.
      const winnerOf = (askId: string) => NAME[records.get(askId)?.result?.answeredBy?.channel ?? ''] ?? '?';
      const told: string[] = [];
      for (const { m, tapId } of lateTg) told.push(`${winnerOf(m.askId)}|${(await tg.toast(tapId)) ?? ''}`);
      for (const m of late) {
        const notice = slack.fake.ephemeralsFor(m.slackUser).at(-1)?.text ?? '';
        told.push(`${winnerOf(m.askId)}|${notice}`);
      }
      const followups = world.history
        .read()
        .filter((e) => e.type === 'toast' && e.platform === 'discord' && e.data?.via === 'followup');
      for (const { m, tapId } of lateDc)
        told.push(`${winnerOf(m.askId)}|${String(followups.find((f) => f.data?.tapId === tapId)?.result ?? '')}`);
      const honest = told.filter((t) => {
        const [where, text] = t.split('|') as [string, string];
        return /already answered by .+ in /.test(text) && text.endsWith(`in ${where}`);
      }).length;
      if (honest !== told.length)
        problems.push(`late taps told: ${told.filter((t) => !/already answered by .+ in /.test(t)).join(' / ')}`);

      rows.push({
        row: 'P2',
        title: 'Duplicate taps across platforms',
        platform: 'telegram+slack+discord',
        injected: `${made.length} asks each delivered to Telegram, Slack and Discord: 20 raced by a tap on every platform within ~30 ms (Telegram, polled, 250 ms ahead where it taps first) plus ${copies} re-sent taps within 400 ms (4 of them needing 2 matching answers, all three people tapping the same option), 1 answered on Slack only, 2 timed out (5 s); then ${told.length} late taps (2 per platform per ask on 6 asks)`,
        figures: {
          ...report.figures,
          messages: made.length * 3,
          messagesShowingOutcome: finalEdits,
          lateTapsToldWhere: honest,
          agreementMessageEdits: agreeEdits,
          wonBy: Object.entries(winners)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        },
        violations: [...violations, ...problems],
      });
      expect(problems).toEqual([]);
      expect(violations).toEqual([]);
      expect(report.figures.answered).toBe(21);
      expect(report.figures.timedOut).toBe(2);
      expect(report.figures.doubleApplied).toBe(0);
    } finally {
      await agents.stop();
      await world.close();
      await tg.close();
      await slack.close();
      await discord.close();
    }
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { startAskgateProcess, type AskgateProcess } from '../helpers/askgate-process.js';
import { freePort, startRedis } from '../helpers/redis-server.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { client, eventually } from '../helpers/http.js';
import { buttonReply, inboundMessage, startFakeWhatsApp } from '../fakes/whatsapp-api.js';
import { Redis } from 'ioredis';
import { writeSummary, type RowSummary } from './harness/world.js';

// W1 (issue 39): a WhatsApp webhook re-sent after a restart is taken once. A real `askgate serve`
// child is killed (-9) after it received a tap and committed the answer, before it acknowledged the
// webhook: askgate's Redis traffic runs through a proxy that watches for the second script call
// naming the tap's message id (the settle of its event claim, made after the commit, right before
// the 200). Two cut points: (a) that settle held, so it never runs (the event's lease is left; the
// re-send waits it out with 503s, then is a retry); (b) the settle run and its reply held, so the
// 200 is never written (the re-send is `done`). Meta re-sends the same signed body until a 200, to
// the restarted process. Each tap must be one answer and no notice; the outcome reply is counted
// (a kill after the outbox posted it and before it was recorded posts it again: see the figures).
const rows: RowSummary[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOKEN = 'whatsapp-restart-token-0123456789';
const WA = { token: 'EAAG-rel-token', phoneNumberId: '106540352242922', appSecret: 'rel-app-secret-0123456789' };
const QUESTION = {
  id: 'env',
  question: 'Where should I deploy?',
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
/** The cut points, in turn: (a) before the settle runs, (b) after it ran, its reply held. */
const CUTS = [
  'before-settle',
  'after-settle',
  'before-settle',
  'after-settle',
  'before-settle',
  'after-settle',
] as const;

afterAll(() => writeSummary('whatsapp-restart', rows));

describe('W1: kill -9 of askgate after a WhatsApp webhook was committed, before it was acknowledged', () => {
  it('the webhook Meta re-sends to the restarted process is taken once: one answer, one outcome reply', async () => {
    const redis = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const proxy = await FaultProxy.start(redis.port);
    const wa = await startFakeWhatsApp({ ...WA });
    const port = await freePort();
    const env = {
      REDIS_URL: proxy.redisUrl,
      PORT: String(port),
      ASKGATE_API_TOKEN: TOKEN,
      ASKGATE_KEY_PREFIX: `w1${Date.now()}`,
      WHATSAPP_ACCESS_TOKEN: WA.token,
      WHATSAPP_PHONE_NUMBER_ID: WA.phoneNumberId,
      WHATSAPP_APP_SECRET: WA.appSecret,
      WHATSAPP_VERIFY_TOKEN: 'rel-verify-token',
      WHATSAPP_API_ROOT: wa.apiRoot,
      // A job a killed process left is taken over within seconds, not the default 30 s.
      ASKGATE_SWEEP_DELAY_MS: '2000',
      ASKGATE_RECONCILE_INTERVAL_MS: '500',
    };
    let askgate: AskgateProcess = await startAskgateProcess(env);
    const url = askgate.url;
    const webhook = `${url}/whatsapp/webhook`;
    const api = client(url, TOKEN);
    const restarts: number[] = [];
    const resendsUntilOk: number[] = [];
    /** From the first re-send to its 200: a held lease (the settle never ran) is waited out within the request. */
    const resendMs: number[] = [];
    const resendStatuses: string[] = [];
    const firstAttempts: string[] = [];
    const violations: string[] = [];
    const direct = new Redis(redis.url, { lazyConnect: false, maxRetriesPerRequest: 1 });
    let committedBeforeKill = 0;
    const outcomeBeforeKill: number[] = [];
    const seenAtKill: string[] = [];
    const asks: { id: string; prompt: string; tap: string; person: string; expected: string }[] = [];

    /**
     * Holds askgate's Redis traffic at `cut` of the settle of the claim on `messageId`; resolves once
     * it holds. The settle is the script call with the event's seen key as its one key and one
     * argument (the claim and the release carry three); it is made only after the commit.
     */
    const holdAt = (messageId: string, cut: (typeof CUTS)[number]) =>
      new Promise<void>((held) => {
        const key = `:seen:whatsapp:${messageId.replace(/\./g, '\\.')}`;
        const head = '(?:\\$7\\r\\nevalsha\\r\\n\\$40\\r\\n[0-9a-f]{40}|\\$4\\r\\neval\\r\\n\\$\\d+\\r\\n[^*]*?)';
        const settle = new RegExp(
          `\\*5\\r\\n${head}\\r\\n\\$1\\r\\n1\\r\\n\\$\\d+\\r\\n[^\\r]*${key}\\r\\n\\$\\d+\\r\\n\\d+\\r\\n(?=\\*|$)`,
        );
        let armed = false;
        proxy.set({
          resetWhen: (chunk, direction) => {
            if (!armed && direction === 'up' && settle.test(chunk.toString('latin1'))) {
              if (cut === 'before-settle') {
                proxy.set({ blackhole: true, resetWhen: undefined });
                held();
              } else armed = true;
            } else if (armed && direction === 'down') {
              // Every reply from here on (the settle's among them) is held: askgate never writes its 200.
              proxy.set({ blackhole: true, resetWhen: undefined });
              held();
            }
            return false;
          },
        });
      });

    try {
      for (const [n, cut] of CUTS.entries()) {
        const person = `1555123${String(4000 + n)}`;
        const created = await api.post('/v1/asks', {
          runId: `w1-${n}`,
          questions: [QUESTION],
          to: { channel: 'whatsapp', chat: `+${person}` },
          timeoutSeconds: 600,
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const id = created.body.id as string;
        const prompt = await eventually(async () => wa.sent.find((m) => m.body.to === person && !m.body.context));
        const buttons = prompt.body.interactive.action.buttons as { reply: { id: string; title: string } }[];
        const choice = buttons[n % 2]!;
        const event = inboundMessage(person, buttonReply(prompt.id, choice.reply.id, choice.reply.title), `P${n}`) as {
          messages: { id: string }[];
        };
        const tap = event.messages[0]!.id;
        asks.push({ id, prompt: prompt.id, tap, person: `+${person}`, expected: choice.reply.title });

        const held = holdAt(tap, cut);
        const first = wa.deliver(webhook, event).then(
          (r) => `${r.status}`,
          () => 'no answer (connection lost)',
        );
        await held;
        await askgate.kill9();
        outcomeBeforeKill.push(wa.sent.filter((m) => m.body.context?.message_id === prompt.id).length);
        firstAttempts.push(await first);
        // The answer was committed before the kill: Redis has the ask answered.
        const stored = await direct.get(`${env.ASKGATE_KEY_PREFIX}:{w1-${n}}:ask:${id}`);
        if (stored?.split(' ')[1] === 'answered') committedBeforeKill++;
        else violations.push(`${id}: not committed when askgate was killed (${stored?.slice(0, 20)})`);
        const seen = await direct.get(`${env.ASKGATE_KEY_PREFIX}:seen:whatsapp:${tap}`);
        seenAtKill.push(
          seen === 'd'
            ? 'settled'
            : seen?.startsWith('p:')
              ? `lease+${Number(seen.split(':')[1]) - Date.now()}ms`
              : String(seen),
        );
        // The held bytes go nowhere: the killed process's connections are cut before traffic flows again.
        proxy.cutAll();
        proxy.heal();
        const started = Date.now();
        askgate = await startAskgateProcess(env);
        restarts.push(Date.now() - started);
        // Meta re-sends the same signed body until it gets a 200.
        let tries = 0;
        const resent = Date.now();
        for (;;) {
          tries++;
          const status = await wa.deliver(webhook, event).then(
            (r) => r.status,
            () => 0,
          );
          resendStatuses.push(`${cut}:${status}`);
          if (status === 200) break;
          if (tries > 80) throw new Error(`the re-sent webhook never got a 200 (${resendStatuses.join(', ')})`);
          await sleep(250);
        }
        resendsUntilOk.push(tries);
        resendMs.push(Date.now() - resent);
      }

      const results = await Promise.all(
        asks.map((a) =>
          eventually(async () => {
            const r = await client(askgate.url, TOKEN).get(`/v1/asks/${a.id}`);
            return r.body.status === 'pending' ? undefined : r.body;
          }, 60_000),
        ),
      );
      // The outcome reply is sent by the outbox after the commit (a job the killed process left is taken over).
      const outcomeReplies = () =>
        asks.map((a) => wa.sent.filter((m) => m.body.context?.message_id === a.prompt).length);
      await eventually(async () => (outcomeReplies().every((c) => c >= 1) ? true : undefined), 60_000).catch(
        () => undefined,
      );
      await sleep(1_500); // a second reply, if one were coming, would be sent by now
      const outcomes = outcomeReplies();
      const notices = asks.map((a) => wa.sent.filter((m) => m.body.context?.message_id === a.tap).length);
      const answeredEntries: number[] = [];
      for (const [i, a] of asks.entries()) {
        const view = results[i]!;
        const events = (await client(askgate.url, TOKEN).get(`/v1/asks/${a.id}/events`)).body.events as {
          type: string;
        }[];
        const answered = events.filter((e) => e.type === 'answered').length;
        answeredEntries.push(answered);
        if (view.result?.status !== 'answered' || view.result.answers?.env?.[0] !== a.expected)
          violations.push(`${a.id}: ${JSON.stringify(view.result)} (expected ${a.expected})`);
        if (view.result?.answeredBy?.userId !== a.person)
          violations.push(`${a.id}: answered by ${JSON.stringify(view.result?.answeredBy)}`);
        if (answered !== 1) violations.push(`${a.id}: ${answered} answered entries`);
        if (outcomes[i]! < 1) violations.push(`${a.id}: no outcome reply`);
        // A second outcome reply is the non-editing channel's post-then-record window (the killed
        // process posted the outcome, its `finalized` record was cut off, the restarted one posts
        // again): counted, and a violation only where no outcome had gone out before the kill.
        if (outcomes[i]! > 1 && outcomeBeforeKill[i] === 0)
          violations.push(`${a.id}: ${outcomes[i]} outcome replies, none before the kill`);
        if (notices[i] !== 0) violations.push(`${a.id}: ${notices[i]} notices replied to the tap`);
      }
      // The kill came after the commit and before the acknowledgement: the first attempt got no 200.
      for (const [i, f] of firstAttempts.entries())
        if (f === '200') violations.push(`cut ${i}: acknowledged before the kill`);
      rows.push({
        row: 'W1',
        title: 'WhatsApp: kill -9 after a webhook was committed, before it was acknowledged',
        platform: 'whatsapp',
        injected: `${CUTS.length} × kill -9 of askgate with a tap's webhook in flight, its answer committed: ${CUTS.filter((c) => c === 'before-settle').length} with the event claim's settle held (never run), ${CUTS.filter((c) => c === 'after-settle').length} with the settle run and its reply held (the 200 never written); Meta's re-send of the same signed body to the restarted process until a 200`,
        figures: {
          asks: asks.length,
          answered: results.filter((r) => r.result?.status === 'answered').length,
          kills: CUTS.length,
          doubleApplied: answeredEntries.filter((n) => n > 1).length,
          committedBeforeKill,
          lost: results.filter((r) => r.result?.status !== 'answered').length,
          firstAttempt: firstAttempts.join(' / '),
          resendsUntilOk: resendsUntilOk.join(' '),
          outcomeSentBeforeKill: outcomeBeforeKill.join(' '),
          seenAtKill: seenAtKill.join(' '),
          outcomeRepliesPerAsk: outcomes.join(' '),
          duplicateOutcomeReplies: outcomes.filter((c) => c > 1).length,
          noticesPerTap: notices.join(' '),
        },
        violations,
        extra: { restartMs: restarts, resendToOkMs: resendMs },
      });
      expect(violations).toEqual([]);
    } finally {
      await askgate.stop().catch(() => {});
      direct.disconnect();
      await proxy.close();
      await wa.close();
      await redis.dispose();
    }
  });
});

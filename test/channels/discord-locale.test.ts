import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { FakeDiscord, type FakeInteraction } from '../fakes/discord-api.js';
import type { ModalValues } from '../fakes/discord-modals.js';
import { user, type ApiMessage, type ApiUser } from '../fakes/discord-payloads.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { renderPrompt, visibleText } from '../../src/channels/discord/render.js';
import { formModal, modalProblems } from '../../src/channels/discord/modal.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { translate, wordsFor } from '../../src/core/i18n/index.js';
import type { RunningAskgate } from '../../src/main.js';

// Issue 18 on Discord: the message, its buttons, the edited outcome and reminders follow the ask's
// locale; what one person sees (ephemerals, modals) follows their client's `interaction.locale`.

const quiet = { info() {}, warn() {}, error() {} };
const english = user('411111111111111111', 'edna', null);
const brazilian = user('422222222222222222', 'bia', null);
const spanish = user('433333333333333333', 'sol', null);

let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  fake.clientLocales.set(brazilian.id, 'pt-BR');
  fake.clientLocales.set(spanish.id, 'es-ES');
  chat = fake.addTextChannel();
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(testEnv({ REDIS_URL: redis.url }), [channel]);
  api = client(app.url);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

const single = {
  id: 'go',
  question: 'Ship it?',
  multiSelect: false,
  options: [{ label: 'Approve' }, { label: 'Reject' }],
};
const several = [
  { id: 'env', question: 'Where?', multiSelect: false, options: [{ label: 'Staging' }, { label: 'Production' }] },
  { id: 'tags', question: 'Which?', multiSelect: true, options: [{ label: 'x1' }, { label: 'y1' }] },
];

async function ask(locale: string | null, questions: object[], extra: object = {}) {
  const { status, body } = await api.post('/v1/asks', {
    runId: `locale-${++run}`,
    to: { channel: 'discord', chat },
    questions,
    ...(locale ? { locale } : {}),
    ...extra,
  });
  expect(status).toBe(201);
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id as string, msg: fake.messages.get(messageId)! };
}

type Button = { label: string; custom_id: string };
const buttons = (m: ApiMessage) => (m.components as { components: Button[] }[]).flatMap((r) => r.components);
const shown = (m: ApiMessage) => [visibleText(m.content), ...buttons(m).map((b) => b.label)];

/** The first ephemeral the person got for an interaction. */
async function ephemeral(i: FakeInteraction): Promise<string> {
  await eventually(async () => i.followUps.length > 0);
  expect(i.followUps[0]!.flags).toBe(64);
  return visibleText(i.followUps[0]!.content);
}

/** Taps the `index`th button and waits for the modal it opens. */
async function openModal(m: ApiMessage, index: number, who: ApiUser): Promise<FakeInteraction> {
  const tap = fake.tap(m.id, buttons(m)[index]!.custom_id, who);
  await eventually(async () => tap.ackType !== undefined);
  expect(tap.ackType).toBe(9);
  return tap;
}

/** The words of a modal a person sees: its title, labels and descriptions. */
function modalWords(i: FakeInteraction): string[] {
  const modal = i.modal!;
  return [modal.title, ...modal.components.flatMap((c: any) => [c.label, c.description ?? ''])];
}

const finalized = (m: ApiMessage) =>
  eventually(async () => {
    const now = fake.messages.get(m.id)!;
    return now.components.length === 0 && now.edited_timestamp ? now : undefined;
  });

/** Everything `who` and the channel see of askgate for the same asks, in `locale` (null: none given). */
async function renderAll(locale: string | null, who: ApiUser): Promise<string[]> {
  const out: string[] = [];
  const a = await ask(locale, [single], { remindAfterSeconds: [1], timeoutSeconds: 600 });
  out.push(...shown(a.msg));
  const approve = buttons(a.msg)[0]!.custom_id;
  const reminder = await eventually(async () =>
    [...fake.messages.values()].find((m) => (m.message_reference as any)?.message_id === a.msg.id),
  );
  out.push(visibleText(reminder.content));
  const own = await openModal(a.msg, 2, who);
  out.push(...modalWords(own));
  out.push(await ephemeral(fake.submitModal(own, { w1: 'mine' })));
  out.push(...shown(await finalized(a.msg)));
  out.push(await ephemeral(fake.tap(a.msg.id, approve, who)));

  const b = await ask(locale, several);
  out.push(...shown(b.msg));
  const form = await openModal(b.msg, 0, who);
  out.push(...modalWords(form));
  out.push(await ephemeral(fake.submitModal(form, { q1: null } as ModalValues)));
  const again = await openModal(b.msg, 0, who);
  out.push(await ephemeral(fake.submitModal(again, { q1: '1', q2: ['2'] })));
  out.push(...shown(await finalized(b.msg)));

  const c = await ask(locale, [single]);
  out.push(await ephemeral(fake.tap(c.msg.id, buttons(c.msg)[3]!.custom_id, who)));
  out.push(...shown(await finalized(c.msg)));
  return out;
}

const words = (list: readonly string[]) =>
  new Set(list.flatMap((t) => [...t.toLowerCase().matchAll(/\p{L}{3,}/gu)].map((m) => m[0])));
// The agent's words, people's names, and names that are the same in every language.
const NOT_UI = words(['Ship it? Approve Reject Staging Production Where? Which? mine edna bia', 'UTC Discord']);

describe('Discord speaks the ask’s and the person’s language', () => {
  it('an ask with locale pt-BR, answered by a Portuguese client, shows no English UI word', async () => {
    const en = await renderAll(null, english);
    const pt = await renderAll('pt-BR', brazilian);
    const ui = [...words(en)].filter((x) => !NOT_UI.has(x));
    // The English rendering has the words to look for (a test that cannot fail is a defect).
    expect(ui).toEqual(expect.arrayContaining(['other', 'skip', 'answer', 'reminder', 'recorded', 'already']));
    expect(ui).toEqual(expect.arrayContaining(['own', 'words', 'tap', 'again', 'skipped', 'question']));
    expect([...words(pt)].filter((x) => ui.includes(x))).toEqual([]);
    expect(pt).toEqual(expect.arrayContaining(['Outra…', 'Pular', 'Responder', 'Resposta registrada']));
  });

  it('a Spanish client tapping an English ask gets a Spanish ephemeral; the message stays English', async () => {
    const { id, msg } = await ask(null, [single]);
    expect(await ephemeral(fake.tap(msg.id, buttons(msg)[1]!.custom_id, spanish))).toBe(
      wordsFor('es').t('notice.recorded'),
    );
    const final = await finalized(msg);
    expect(visibleText(final.content)).toContain('Answered: Reject — by @sol');
    expect((await api.get(`/v1/asks/${id}`)).body.result.answers).toEqual({ go: ['Reject'] });
  });

  it('a Spanish client opens the form of an English ask in Spanish and is told its problems in Spanish', async () => {
    const { msg } = await ask(null, several);
    expect(buttons(msg).map((b) => b.label)).toEqual(['Answer', 'Skip']);
    const es = wordsFor('es');
    const form = await openModal(msg, 0, spanish);
    expect(form.modal!.title).toBe(es.t('control.formTitle'));
    expect(form.modal!.components[1]).toMatchObject({ label: `1. ${es.t('control.ownWords')}` });
    const notice = await ephemeral(fake.submitModal(form, { q2: ['1'] }));
    expect(notice).toBe(`${es.t('form.problem', { n: 1, message: es.t('form.nothing') })} ${es.t('form.tapAgain')}`);
  });

  it('a client language askgate does not ship falls back to the ask’s (pt-BR)', async () => {
    const korean = user('444444444444444444', 'min', null);
    fake.clientLocales.set(korean.id, 'ko');
    const { msg } = await ask('pt-BR', [single]);
    expect(await ephemeral(fake.tap(msg.id, buttons(msg)[0]!.custom_id, korean))).toBe('Resposta registrada');
  });

  it.each(['__proto__', 'constructor', 'x'.repeat(300), '{summary}', 'pt-BR\u0000'])(
    'a forged client language (%s) is only a hint: the ask’s words answer',
    async (forged) => {
      const who = user(`45${String(++run).padStart(16, '0')}`, 'mallory', null);
      fake.clientLocales.set(who.id, forged);
      const { msg } = await ask('de', [single]);
      expect(await ephemeral(fake.tap(msg.id, buttons(msg)[0]!.custom_id, who))).toBe(
        wordsFor('de').t('notice.recorded'),
      );
    },
  );
});

describe('Discord limits hold in every language', () => {
  const shapes = [[single], several, [...several, { ...several[0]!, id: 'third' }]];
  it.each(['en', 'pt-BR', 'es', 'fr', 'de', 'ja'])('%s: buttons and modals fit, so the form is offered', (tag) => {
    for (const questions of shapes) {
      const view = buildPromptView({ id: 'LocaleAsk0000002', version: 1, questions: questions as never, locale: tag });
      const message = renderPrompt(view); // throws a permanent ChannelError for a layout Discord refuses
      const labels = message.components.flatMap((r) => r.components.map((b) => b.label));
      for (const label of labels) expect(label.length).toBeLessThanOrEqual(80);
      if (view.form) {
        expect(labels).toEqual([translate(tag, 'control.answer'), translate(tag, 'control.skip')]);
        for (const person of ['en', 'pt-BR', 'es', 'fr', 'de', 'ja'])
          expect(modalProblems(formModal(view, view.form.open, person)!.toJSON())).toEqual([]);
      }
    }
  });
});

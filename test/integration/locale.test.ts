import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import { askBody, client, eventually } from '../helpers/http.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import type { RunningAskgate } from '../../src/main.js';

// In memory (no REDIS_URL): the locale is a field of the record, stored like any other.
const channel = new RecordingChannel('test');
const german = new RecordingChannel('test');
let app: RunningAskgate;
let deApp: RunningAskgate;
let api: ReturnType<typeof client>;
let deApi: ReturnType<typeof client>;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  deApp = await startTestApp(testEnv({ ASKGATE_DEFAULT_LOCALE: 'de' }), [german]);
  api = client(app.url);
  deApi = client(deApp.url);
});

afterAll(async () => {
  await app?.close();
  await deApp?.close();
});

const to = { channel: 'test', chat: 'c1' };
const alice = { channel: 'test', userId: 'u1', name: 'Alice' };
const deliveredTo = (c: RecordingChannel, askId: string) =>
  eventually(async () => c.delivered.find((d) => d.askId === askId));

describe('locale and timeZone on an ask', () => {
  it.each([
    ['a malformed locale', { locale: 'en_US' }, 'locale'],
    ['a locale that is not a string', { locale: 42 }, 'locale'],
    ['an empty locale', { locale: '' }, 'locale'],
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, 'timeZone'],
    ['a time zone that is not a string', { timeZone: ['UTC'] }, 'timeZone'],
  ])('%s -> 400 naming the field', async (_name, extra, path) => {
    const res = await api.post('/v1/asks', askBody('r-bad-locale', extra));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.issues.map((i: { path: unknown[] }) => i.path.join('.'))).toEqual([path]);
  });

  it('keeps both in canonical form and shows them; absent when not given', async () => {
    const res = await api.post('/v1/asks', askBody('r-pt', { locale: 'pt-br', timeZone: 'america/sao_paulo' }));
    expect(res.status).toBe(201);
    const got = await api.get(`/v1/asks/${res.body.id}`);
    expect(got.body).toMatchObject({ locale: 'pt-BR', timeZone: 'America/Sao_Paulo' });
    const plain = await api.post('/v1/asks', askBody('r-plain'));
    const view = (await api.get(`/v1/asks/${plain.body.id}`)).body;
    expect(view).not.toHaveProperty('locale');
    expect(view).not.toHaveProperty('timeZone');
  });

  it('a pt-BR ask is delivered, answered and finalized in Portuguese; "pular" skips it', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('r-pt-flow', { to, locale: 'pt-BR' }));
    const delivered = await deliveredTo(channel, ask.id);
    expect(delivered.view.locale).toBe('pt-BR');
    expect(delivered.view.buttons!.map((b) => b.label)).toEqual(['Staging', 'Production', 'Outra…', 'Pular']);
    const outcome = await channel.sink!.text({
      channel: 'test',
      chat: 'c1',
      privateChat: true,
      user: alice,
      text: 'pular',
    });
    expect(outcome).toEqual({ kind: 'recorded', summary: 'Pulo registrado', locale: 'pt-BR' });
    const messageId = (await api.get(`/v1/asks/${ask.id}`)).body.deliveries[0].message.messageId;
    const final = await eventually(async () => channel.finalized.find((f) => f.ref.messageId === messageId));
    expect(final.outcome.text).toBe('Pulada por Alice');
  });

  it('a Spanish-speaking person tapping an ask without a locale gets a Spanish toast; the message stays English', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('r-es-tap', { to: { ...to, chat: 'c2' } }));
    const delivered = await deliveredTo(channel, ask.id);
    expect(delivered.view.buttons!.map((b) => b.label)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    const tap = (token: string) =>
      channel.sink!.button({ channel: 'test', token, user: alice, chat: 'c2', locale: 'es-MX' });
    expect(await tap(delivered.view.buttons![0]!.token)).toEqual({
      kind: 'recorded',
      summary: 'Respuesta registrada',
      locale: 'es',
    });
    expect(await tap(delivered.view.buttons![1]!.token)).toEqual({
      kind: 'already_resolved',
      summary: 'Esta pregunta ya fue respondida por Alice',
      locale: 'es',
    });
    const final = await eventually(async () =>
      channel.finalized.find((f) => f.outcome.text.startsWith('Answered: Staging')),
    );
    expect(final.outcome.text).toBe('Answered: Staging — by Alice');
  });

  it('a person whose language is not shipped reads the ask locale', async () => {
    const { body: ask } = await api.post('/v1/asks', askBody('r-ko', { to: { ...to, chat: 'c3' }, locale: 'fr' }));
    const delivered = await deliveredTo(channel, ask.id);
    const outcome = await channel.sink!.button({
      channel: 'test',
      token: delivered.view.buttons![2]!.token,
      user: alice,
      chat: 'c3',
      locale: 'ko',
    });
    expect(outcome).toMatchObject({ kind: 'need_text', locale: 'fr', prompt: expect.stringMatching(/^Répondez/) });
  });

  it('a typed reply gets its hint in the person language; their skip word counts too', async () => {
    const body = askBody('r-de-person', { to: { ...to, chat: 'c4' }, locale: 'pt-BR' });
    const { body: ask } = await api.post('/v1/asks', body);
    await deliveredTo(channel, ask.id);
    const reply = (text: string, locale?: string) =>
      channel.sink!.text({
        channel: 'test',
        chat: 'c4',
        privateChat: true,
        user: alice,
        text,
        ...(locale ? { locale } : {}),
      });
    expect(await reply('7', 'de-DE')).toMatchObject({
      kind: 'invalid',
      locale: 'de',
      hint: expect.stringMatching(/^Es gibt keine Option 7\. Antworte mit einer Nummer von 1 bis 2/),
    });
    expect(await reply('7')).toMatchObject({
      kind: 'invalid',
      locale: 'pt-BR',
      hint: expect.stringMatching(/^Não existe a opção 7/),
    });
    expect(await reply('omitir')).toMatchObject({ kind: 'recorded', summary: 'Resposta registrada' });
    expect((await api.get(`/v1/asks/${ask.id}`)).body.result).toMatchObject({ answers: { env: ['omitir'] } });
    const again = await api.post('/v1/asks', askBody('r-de-person-2', { to: { ...to, chat: 'c5' }, locale: 'pt-BR' }));
    await deliveredTo(channel, again.body.id);
    const skipped = await channel.sink!.text({
      channel: 'test',
      chat: 'c5',
      privateChat: true,
      user: alice,
      text: 'Überspringen',
      locale: 'de',
    });
    expect(skipped).toEqual({ kind: 'recorded', summary: 'Überspringen gespeichert', locale: 'de' });
  });

  it('ASKGATE_DEFAULT_LOCALE speaks for asks that name no locale, and stays out of the record', async () => {
    const { body: ask } = await deApi.post('/v1/asks', askBody('r-de', { to }));
    const delivered = await deliveredTo(german, ask.id);
    expect(delivered.view.locale).toBe('de');
    expect(delivered.view.buttons!.map((b) => b.label)).toContain('Überspringen');
    expect((await deApi.get(`/v1/asks/${ask.id}`)).body).not.toHaveProperty('locale');
    const named = await deApi.post('/v1/asks', askBody('r-de-ja', { to: { ...to, chat: 'c9' }, locale: 'ja' }));
    expect((await deliveredTo(german, named.body.id)).view.locale).toBe('ja');
  });
});

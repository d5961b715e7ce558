import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCORD_CAPABILITIES } from '../../src/channels/discord/capabilities.js';
import { DiscordChannel } from '../../src/channels/discord/discord-channel.js';
import { renderPrompt } from '../../src/channels/discord/render.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { RunningAskgate } from '../../src/main.js';
import { FakeDiscord, layoutErrors } from '../fakes/discord-api.js';
import type { ApiMessage } from '../fakes/discord-payloads.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { client, eventually } from '../helpers/http.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

// Issue 38 on Discord: a prompt shortened to fit, or with no buttons here, carries an "Open" link
// button (style 5, a url, no custom_id: Discord opens it and sends askgate nothing) to the answer
// page, within Discord's limits (a url of at most 512 characters, 5 rows of 5 buttons).

const PUBLIC = 'https://askgate.example.com';
const quiet = { info() {}, warn() {}, error() {} };
let redis: TestRedis;
let fake: FakeDiscord;
let app: RunningAskgate;
let api: ReturnType<typeof client>;
let chat: string;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  fake = await FakeDiscord.start();
  chat = fake.addTextChannel();
  const channel = new DiscordChannel({ token: fake.token, apiUrl: fake.apiUrl, logger: quiet });
  app = await startTestApp(
    testEnv({
      REDIS_URL: redis.url,
      ASKGATE_PUBLIC_URL: PUBLIC,
      ASKGATE_LINK_SECRET: 'discord-page-link-secret-0123456789abcdef',
    }),
    [channel],
  );
  api = client(app.url);
}, 30_000);

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await redis?.dispose();
});

/** Three questions of 1000 characters with long option descriptions: more than Discord's 2000. */
const long = [0, 1, 2].map((n) => ({
  id: `q${n}`,
  question: `Question ${n}: ${'lorem ipsum dolor sit amet '.repeat(37)}`.slice(0, 1000),
  options: [0, 1, 2, 3].map((k) => ({ label: `Option ${n}.${k}`, description: 'd'.repeat(300) })),
}));
const short = [{ id: 'env', question: 'Where?', options: [{ label: 'Staging' }, { label: 'Production' }] }];

async function ask(questions: object[], extra: Record<string, unknown> = {}): Promise<{ id: string; msg: ApiMessage }> {
  const { status, body } = await api.post('/v1/asks', {
    runId: `discord-page-${++run}`,
    to: { channel: 'discord', chat },
    timeoutSeconds: 600,
    questions,
    ...extra,
  });
  expect(status, JSON.stringify(body)).toBe(201);
  const messageId = await eventually(
    async () => (await api.get(`/v1/asks/${body.id}`)).body.deliveries[0].message?.messageId as string | undefined,
  );
  return { id: body.id, msg: fake.messages.get(messageId)! };
}

type Button = { style: number; label: string; url?: string; custom_id?: string };
const buttonsOf = (m: ApiMessage) => (m.components as { components: Button[] }[]).flatMap((r) => r.components);
const links = (m: ApiMessage) => buttonsOf(m).filter((b) => b.style === 5);

describe('Discord: the Open button to the answer page', () => {
  it('a prompt that fits whole has none', async () => {
    const { msg } = await ask(short);
    expect(links(msg)).toEqual([]);
    expect(buttonsOf(msg).length).toBeGreaterThan(0);
  });

  it('a shortened prompt has a link button in a row of its own; answering on the page edits the message', async () => {
    const { id, msg } = await ask(long);
    const [open] = links(msg);
    expect(open).toMatchObject({ type: 2, style: 5, label: 'Open' });
    expect(open).not.toHaveProperty('custom_id');
    expect(open!.url!.startsWith(`${PUBLIC}/a/`)).toBe(true);
    const rows = msg.components as { components: Button[] }[];
    expect(rows.at(-1)!.components).toEqual([open]);
    const local = app.url + open!.url!.slice(PUBLIC.length);
    const html = await (await fetch(local)).text();
    const guard = /name="guard" value="([^"]+)"/.exec(html)![1]!;
    const answered = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ guard, c0: '0', c1: '1', c2: '2' }).toString(),
    });
    expect(answered.status).toBe(200);
    expect((await api.get(`/v1/asks/${id}`)).body.result).toMatchObject({
      status: 'answered',
      answers: { q0: ['Option 0.0'], q1: ['Option 1.1'], q2: ['Option 2.2'] },
    });
    await eventually(async () => (await api.get(`/v1/asks/${id}`)).body.deliveries[0].finalized === 'done');
    expect(fake.messages.get(msg.id)!.components).toEqual([]);
  });

  it('the label is in the ask locale', async () => {
    const { msg } = await ask(long, { locale: 'fr' });
    expect(links(msg)[0]?.label).toBe('Ouvrir');
  });
});

describe('Discord: the Open button within Discord limits', () => {
  const viewOf = (questions: object[], link: string): PromptView => ({
    ...buildPromptView(
      { id: 'OpenAsk000000001', version: 1, questions } as never,
      wordsFor('en'),
      DISCORD_CAPABILITIES,
    ),
    link,
  });
  const openOf = (m: { components: { components: object[] }[] }) =>
    m.components.flatMap((r) => r.components).filter((b) => (b as Button).style === 5) as Button[];

  it('a url longer than 512 characters is left out; one of 512 is kept; both valid for Discord', () => {
    const over = renderPrompt(viewOf(long, `${PUBLIC}/a/`.padEnd(513, 'x')));
    expect(openOf(over)).toEqual([]);
    expect(layoutErrors(over)).toBeNull();
    const at = renderPrompt(viewOf(long, `${PUBLIC}/a/`.padEnd(512, 'x')));
    expect(openOf(at)).toHaveLength(1);
    expect(layoutErrors(at)).toBeNull();
  });

  it('a prompt with no buttons here (no form: answered by reply) gets it as its only row', () => {
    const { form: _form, ...rest } = viewOf(short, `${PUBLIC}/a/tok`);
    const message = renderPrompt({ ...rest, buttons: null });
    expect(message.components).toEqual([
      { type: 1, components: [{ type: 2, style: 5, label: 'Open', url: `${PUBLIC}/a/tok` }] },
    ]);
    expect(layoutErrors(message)).toBeNull();
  });

  it('five full rows: no room, no Open; five rows with room: it joins the last one; never over the limits', () => {
    const view = viewOf(long, `${PUBLIC}/a/tok`);
    const buttons = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ kind: 'option' as const, label: `C${i + 1}`, token: `tok${i}` }));
    const full = renderPrompt({ ...view, buttons: buttons(25) });
    expect(full.components).toHaveLength(5);
    expect(openOf(full)).toEqual([]);
    expect(layoutErrors(full)).toBeNull();
    const roomy = renderPrompt({ ...view, buttons: buttons(24) });
    expect(roomy.components.map((r) => r.components.length)).toEqual([5, 5, 5, 5, 5]);
    expect(roomy.components[4]!.components.at(-1)).toMatchObject({ style: 5, label: 'Open' });
    expect(layoutErrors(roomy)).toBeNull();
  });

  it('no link, no button', () => {
    const plain = buildPromptView({ id: 'OpenAsk000000002', version: 1, questions: long } as never);
    expect(openOf(renderPrompt(plain))).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SLACK_CAPABILITIES } from '../../src/channels/slack/capabilities.js';
import { OPEN_ACTION, renderPrompt } from '../../src/channels/slack/render.js';
import { formFits } from '../../src/channels/slack/modal.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import { checkMessage, visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import { eventually } from '../helpers/http.js';
import { CHAT, ask, finalMessage, noticesFor, record, startWorld, type FormsWorld } from './slack-forms-world.js';

// Issue 38 on Slack: a prompt shortened to fit, or with no form here, carries an "Open" URL button
// to the answer page. Slack still sends a block_actions for a tap on it: askgate acks it and does
// nothing else (no notice, no error). A prompt that fits whole with its buttons has no such button.

const PUBLIC = 'https://askgate.example.com';
let w: FormsWorld;

beforeAll(async () => {
  w = await startWorld('slack-page-secret', {
    ASKGATE_PUBLIC_URL: PUBLIC,
    ASKGATE_LINK_SECRET: 'slack-page-link-secret-0123456789abcdef',
  });
}, 30_000);

afterAll(async () => {
  await w?.close();
});

/** A question of 1000 `&`: 5000 characters once escaped for mrkdwn, more than a section's 3000. */
const long = [{ id: 'q', question: '&'.repeat(1000), options: [{ label: 'Yes' }, { label: 'No' }] }];
/** A text question longer than a Slack text input takes: no modal, answered by a reply in the thread. */
const wide = [{ id: 'q', kind: 'text', question: 'What happened?', maxLength: 4000 }];

/** The message's URL buttons (label, url, action_id). */
function openButtons(message: FakeMessage): { label: string; url: string; actionId: string }[] {
  const stored = w.fake.message(message.channel, message.ts)!;
  return stored.blocks
    .flatMap((b: any) => (b.type === 'actions' ? b.elements : []))
    .filter((e: any) => typeof e.url === 'string')
    .map((e: any) => ({ label: e.text.text, url: e.url, actionId: e.action_id }));
}

describe('Slack: the Open button to the answer page', () => {
  it('a prompt that fits whole has none', async () => {
    const { message } = await ask(w, 'fits', [
      { id: 'q', question: 'Ship?', options: [{ label: 'Yes' }, { label: 'No' }] },
    ]);
    expect(openButtons(message)).toEqual([]);
    expect(visibleMessage(message).buttons.map((b) => b.label)).toEqual(['Yes', 'No', 'Other…', 'Skip']);
  });

  it('a shortened prompt has one beside its buttons; a tap on it is acked and changes nothing', async () => {
    const { id, message } = await ask(w, 'long', long);
    const [open] = openButtons(message);
    expect(open).toMatchObject({ label: 'Open', actionId: OPEN_ACTION });
    expect(open!.url.startsWith(`${PUBLIC}/a/`)).toBe(true);
    expect(visibleMessage(message).buttons.map((b) => b.label)).toEqual(['Yes', 'No', 'Other…', 'Skip', 'Open']);
    const logged = w.logLines.length;
    const res = await w.slack.postInteractive(w.slack.blockAction(message, open!.url, 'U0100'));
    expect(res.status).toBe(200);
    // A real tap (Yes) afterwards gets its notice: had the Open tap made one, it would come first.
    const tapped = await w.slack.postInteractive(
      w.slack.blockAction(message, visibleMessage(message).buttons[0]!.data, 'U0100'),
    );
    expect(tapped.status).toBe(200);
    await eventually(async () => (await record(w, id)).status === 'answered');
    const notices = noticesFor(w, 'U0100');
    expect(notices.every((n) => !/invalid|expired|not.*valid|failed/i.test(n))).toBe(true);
    expect(w.logLines.slice(logged).filter((l) => /"level":(50|"error")/.test(l))).toEqual([]);
    expect((await finalMessage(w, id, message)).buttons).toEqual([]);
  });

  it('a tap on Open alone records nothing and shows no notice', async () => {
    const { id, message } = await ask(w, 'open-only', long);
    const [open] = openButtons(message);
    const before = w.fake.ephemerals.length;
    const res = await w.slack.postInteractive(w.slack.blockAction(message, open!.url, 'U0101'));
    expect(res.status).toBe(200);
    // The fake records ephemerals synchronously on the API call: give a wrong handler time to make one.
    await new Promise((r) => setTimeout(r, 300));
    expect(w.fake.ephemerals.length).toBe(before);
    expect((await record(w, id)).status).toBe('pending');
  });

  it('a prompt with no form here has one in an actions block of its own; the page answers it', async () => {
    const { id, message } = await ask(w, 'wide', wide);
    const [open] = openButtons(message);
    expect(open?.label).toBe('Open');
    expect(visibleMessage(message).buttons.map((b) => b.label)).toEqual(['Open']);
    const local = w.app.url + open!.url.slice(PUBLIC.length);
    const html = await (await fetch(local)).text();
    const guard = /name="guard" value="([^"]+)"/.exec(html)![1]!;
    const answered = await fetch(local, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ guard, o0: 'The disk filled up' }).toString(),
    });
    expect(answered.status).toBe(200);
    expect((await record(w, id)).result).toMatchObject({
      status: 'answered',
      answers: { q: ['The disk filled up'] },
    });
    expect((await finalMessage(w, id, message)).buttons).toEqual([]);
  });

  it('the label is in the ask locale', async () => {
    const res = await w.api.post('/v1/asks', {
      runId: 'slack-page-pt',
      locale: 'pt-BR',
      questions: wide,
      to: { channel: 'slack', chat: CHAT },
    });
    expect(res.status).toBe(201);
    const sent = await eventually(async () => {
      const r = await w.api.get(`/v1/asks/${res.body.id}`);
      return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
    });
    expect(openButtons(w.fake.message(sent.chat, sent.messageId)!)[0]?.label).toBe('Abrir');
  });
});

describe('Slack: the Open button within Block Kit limits', () => {
  const viewOf = (questions: object[], link: string): PromptView => ({
    ...buildPromptView({ id: 'OpenAsk000000001', version: 1, questions } as never, wordsFor('en'), SLACK_CAPABILITIES),
    link,
  });
  const render = (view: PromptView) => renderPrompt(view, formFits(view));
  const opens = (blocks: any[]) =>
    blocks.flatMap((b) => (b.type === 'actions' ? b.elements : [])).filter((e: any) => e.url !== undefined);

  it('a url longer than 3000 characters is left out, the message still valid', () => {
    const message = render(viewOf(long, `${PUBLIC}/a/${'x'.repeat(3000)}`));
    expect(opens(message.blocks)).toEqual([]);
    expect(checkMessage(message)).toBeNull();
  });

  it('a url of exactly 3000 characters is kept', () => {
    const url = `${PUBLIC}/a/`.padEnd(3000, 'x');
    const message = render(viewOf(long, url));
    expect(opens(message.blocks).map((e: any) => e.url)).toEqual([url]);
    expect(checkMessage(message)).toBeNull();
  });

  it('an actions block already full (25 elements): Open goes in a block of its own', () => {
    // askgate's asks have at most 4 options; the rule holds whatever the core hands a renderer.
    const view = viewOf(long, `${PUBLIC}/a/tok`);
    const buttons = Array.from({ length: 25 }, (_, i) => ({
      kind: 'option' as const,
      label: `C${i + 1}`,
      token: `t${i}`,
    }));
    const message = render({ ...view, buttons });
    const actions = message.blocks.filter((b) => b.type === 'actions') as any[];
    expect(actions.map((b) => b.elements.length)).toEqual([25, 1]);
    expect(actions[1].elements[0]).toMatchObject({ action_id: OPEN_ACTION, url: `${PUBLIC}/a/tok` });
    expect(checkMessage(message)).toBeNull();
  });

  it('no link, no button; a view that fits whole with buttons, no button', () => {
    const plain = buildPromptView({ id: 'OpenAsk000000002', version: 1, questions: long } as never);
    expect(opens(render(plain).blocks)).toEqual([]);
    const fits = viewOf([{ id: 'q', question: 'Ok?', options: [{ label: 'Yes' }] }], `${PUBLIC}/a/tok`);
    expect(opens(render(fits).blocks)).toEqual([]);
  });

  it('a shortened approval carries it', () => {
    const view: PromptView = {
      ...buildPromptView(
        {
          id: 'OpenAsk000000003',
          version: 1,
          questions: [],
          approval: {
            action: 'deploy',
            arguments: { notes: 'n'.repeat(2500) },
            decisions: ['approve', 'reject'],
            actionHash: 'sha256:' + '0'.repeat(64),
            summary: 'Deploy',
          },
        } as never,
        wordsFor('en'),
        SLACK_CAPABILITIES,
      ),
      link: `${PUBLIC}/a/tok`,
    };
    expect(opens(render(view).blocks)).toHaveLength(1);
    expect(checkMessage(render(view))).toBeNull();
    const short = { ...view, approval: { ...view.approval!, arguments: { notes: 'short' } } } as PromptView;
    expect(opens(render(short).blocks)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { visibleMessage, type FakeMessage } from '../fakes/slack-api.js';
import {
  CHAT,
  finalMessage,
  nextNotice,
  noticesFor,
  openModal,
  result,
  runId,
  startWorld,
  tapPayload,
} from './slack-forms-world.js';
import type { FormsWorld } from './slack-forms-world.js';
import { errorsFor, readMeta } from '../../src/channels/slack/form-state.js';
import { formModal } from '../../src/channels/slack/modal.js';
import { localeOfActions, renderPrompt } from '../../src/channels/slack/render.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { formMessages } from '../../src/core/forms.js';
import { wordsFor } from '../../src/core/i18n/index.js';

// Issue 18 on Slack: an ask's locale reaches every word askgate writes there. Slack sends no user
// locale with a tap, a modal submission or a message, so what one person sees follows the ask.

let w: FormsWorld;
beforeAll(async () => {
  w = await startWorld();
});
afterAll(async () => {
  await w?.close();
});

const single = {
  id: 'go',
  question: 'Ship it?',
  multiSelect: false,
  options: [{ label: 'Approve' }, { label: 'Reject' }],
};
const several = [
  {
    id: 'env',
    header: 'Environment',
    question: 'Where?',
    multiSelect: false,
    options: [{ label: 'Staging' }, { label: 'Production' }],
  },
  { id: 'tags', question: 'Which?', multiSelect: true, options: [{ label: 'x1' }, { label: 'y1' }] },
];

async function askIn(locale: string | null, questions: object[], extra: object = {}) {
  const res = await w.api.post('/v1/asks', {
    runId: runId(`locale-${locale}`),
    questions,
    to: { channel: 'slack', chat: CHAT },
    ...(locale ? { locale } : {}),
    ...extra,
  });
  expect(res.status).toBe(201);
  const sent = await eventually(async () => {
    const r = await w.api.get(`/v1/asks/${res.body.id}`);
    return r.body.deliveries[0].status === 'sent' && r.body.deliveries[0].message;
  });
  return { id: res.body.id as string, message: w.fake.message(sent.chat, sent.messageId)! };
}

/** Every `text` string of a view or a block list (titles, labels, hints, placeholders, submit, close). */
function texts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(texts);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'text' && typeof v === 'string' ? [v] : texts(v)));
}

/** A message as a person sees it: its text and its button labels (`finalMessage` already gives it seen). */
const shown = (m: FakeMessage | ReturnType<typeof visibleMessage>) => {
  const v = 'blocks' in m ? visibleMessage(m) : m;
  return [v.text, ...v.buttons.map((b) => b.label)];
};

/** Everything a person sees of askgate on Slack for the same asks, in `locale` (null: none given). */
async function renderAll(locale: string | null, user: string): Promise<string[]> {
  const out: string[] = [];
  const notice = async (before: number) => out.push(await nextNotice(w, user, before));

  // One question with option buttons: Other… opens its modal; a reminder is posted in the thread.
  const a = await askIn(locale, [single], { remindAfterSeconds: [1], timeoutSeconds: 600 });
  out.push(...shown(a.message));
  const stale = w.slack.blockAction(a.message, visibleMessage(a.message).buttons[0]!.data, user);
  const reminder = await until(() =>
    w.fake.callsOf('chat.postMessage').find((c) => c.params.thread_ts === a.message.ts),
  );
  out.push(String(reminder.params.text));
  const own = await openModal(w, a.message, user, visibleMessage(a.message).buttons[2]!.label);
  out.push(...texts(own.view));
  let before = noticesFor(w, user).length;
  await w.slack.submitView(own, { askgate_w1: 'mine' });
  await notice(before);
  out.push(...shown(await finalMessage(w, a.id, a.message)));
  // A tap on the ended ask: the "already answered" ephemeral.
  before = noticesFor(w, user).length;
  await w.slack.postInteractive(stale);
  await notice(before);

  // Two questions: Answer opens the form; an empty submission gets errors in the modal.
  const b = await askIn(locale, several);
  out.push(...shown(b.message));
  const form = await openModal(w, b.message, user, visibleMessage(b.message).buttons[0]!.label);
  out.push(...texts(form.view));
  const refused = await w.slack.submitView(form, {});
  expect(refused.body.response_action).toBe('errors');
  out.push(...Object.values(refused.body.errors as Record<string, string>));
  before = noticesFor(w, user).length;
  await w.slack.submitView(form, { askgate_q1: ['Staging'], askgate_q2: ['x1'] });
  await notice(before);
  out.push(...shown(await finalMessage(w, b.id, b.message)));

  // Skip by tap.
  const c = await askIn(locale, [single]);
  before = noticesFor(w, user).length;
  await w.slack.postInteractive(tapPayload(w, c.message, visibleMessage(c.message).buttons[3]!.label, user));
  await notice(before);
  out.push(...shown(await finalMessage(w, c.id, c.message)));
  return out;
}

// Emoji codes (`:white_check_mark:`) are shown as pictures, not words; a `<!date>` token as its time
// in the reader's own Slack language (its fallback, the ask's language, where a client cannot).
const words = (list: readonly string[]) =>
  new Set(
    list.flatMap((t) =>
      [
        ...t
          .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, '$1')
          .toLowerCase()
          .replace(/:[a-z_]+:/g, ' ')
          .matchAll(/\p{L}{3,}/gu),
      ].map((m) => m[0]),
    ),
  );
// The agent's words, people's names, and names that are the same in every language.
const NOT_UI = words(['Ship it? Approve Reject Environment Staging Production Where? Which? mine', 'UTC Slack']);

describe('Slack speaks the ask’s language', () => {
  it('an ask with locale pt-BR shows no English UI word anywhere a person looks', async () => {
    const english = await renderAll(null, 'U0801');
    const portuguese = await renderAll('pt-BR', 'U0802');
    const ui = [...words(english)].filter((x) => !NOT_UI.has(x));
    // The English rendering has the words to look for (a test that cannot fail is a defect).
    expect(ui).toEqual(expect.arrayContaining(['other', 'skip', 'answer', 'submit', 'cancel', 'thread', 'reminder']));
    expect(ui).toEqual(expect.arrayContaining(['recorded', 'already', 'skipped', 'optional', 'choose']));
    expect([...words(portuguese)].filter((x) => ui.includes(x))).toEqual([]);
    expect(portuguese.join('\n')).toContain('Pular');
    expect(portuguese.join('\n')).toContain('Outra…');
    expect(portuguese.join('\n')).toContain(wordsFor('pt-BR').t('phrase.replyInThread'));
  });

  it('a typed "pular" in the thread skips a pt-BR ask; in an English ask it is the person’s own words', async () => {
    const pt = await askIn('pt-BR', [single]);
    await w.slack.postEvent(
      w.slack.messageEvent({ channel: CHAT, user: 'U0803', text: 'Pular!', threadTs: pt.message.ts }),
    );
    expect(await result(w, pt.id)).toMatchObject({ status: 'no_answer', reason: 'skipped' });
    expect((await finalMessage(w, pt.id, pt.message)).text).toContain('Pulada');
    const en = await askIn(null, [single]);
    await w.slack.postEvent(
      w.slack.messageEvent({ channel: CHAT, user: 'U0803', text: 'pular', threadTs: en.message.ts }),
    );
    expect(await result(w, en.id)).toMatchObject({ status: 'answered', answers: { go: ['pular'] } });
  });

  it('a tap on a pt-BR ask is acknowledged in Portuguese (Slack sends no user locale)', async () => {
    const pt = await askIn('pt-BR', [single]);
    const before = noticesFor(w, 'U0804').length;
    await w.slack.postInteractive(tapPayload(w, pt.message, 'Approve', 'U0804'));
    expect(await nextNotice(w, 'U0804', before)).toBe(wordsFor('pt-BR').t('notice.recorded'));
  });
});

describe('Slack locale plumbing', () => {
  const view = (locale: string) =>
    buildPromptView({ id: 'LocaleAsk0000001', version: 1, questions: several as never, locale });

  it('the actions block names the ask’s locale; only a shipped tag is read back from it', () => {
    const actions = (locale: string) => renderPrompt(view(locale), true).blocks.find((b) => b.type === 'actions')!;
    expect(actions('en').block_id).toBe('askgate_actions');
    expect(actions('ja').block_id).toBe('askgate_actions.ja');
    expect(localeOfActions('askgate_actions.ja')).toBe('ja');
    for (const forged of [
      'askgate_actions',
      'askgate_actions.__proto__',
      'askgate_actions.xx',
      'other.pt-BR',
      42,
      null,
    ])
      expect(localeOfActions(forged)).toBeUndefined();
  });

  it('every locale’s form fits a modal, and the metadata keeps only a shipped locale', () => {
    for (const tag of ['en', 'pt-BR', 'es', 'fr', 'de', 'ja']) {
      const modal = formModal(view(tag), { token: 't', channel: 'C1', locale: tag })!;
      expect(modal).not.toBeNull();
      expect(modal.submit!.text).toBe(wordsFor(tag).t('control.submit'));
      expect(readMeta(modal.private_metadata)).toEqual({
        token: 't',
        channel: 'C1',
        ...(tag === 'en' ? {} : { locale: tag }),
      });
    }
    expect(readMeta('{"t":"t","c":"C1","l":"constructor"}')).toBeNull();
    expect(readMeta('{"t":"t","c":"C1","l":"pt-br"}')).toBeNull();
  });

  it('a too-long own answer is put beside the own words in any language', () => {
    const de = wordsFor('de');
    const fields = { choice: ['askgate_q1'], own: ['askgate_w1'] };
    const problems = [{ question: 0, message: formMessages(de).tooLong }];
    expect(errorsFor(problems, fields, de)).toEqual({ askgate_w1: formMessages(de).tooLong });
    expect(errorsFor([{ question: 0, message: formMessages(de).nothing }], fields, de)).toEqual({
      askgate_q1: formMessages(de).nothing,
    });
  });
});

// The Teams prompt and outcome cards (issue 39): Adaptive Card 1.5 with Universal Actions, every
// prompt kind drawn natively, read-only cards without actions, refresh for the allowed people, user
// text literal, Teams' size limit honoured with an honest cut, the person's language.
import { describe, expect, it } from 'vitest';
import type { IAdaptiveCard } from '@microsoft/teams.cards';
import {
  CARD_BYTES_MAX,
  outcomeCard,
  promptCard,
  REFRESH_USERS_MAX,
  type AdaptiveCard,
} from '../../src/channels/teams/cards.js';
import { escapeMarkdown, jsonBytes, unescapeMarkdown } from '../../src/channels/teams/cards-text.js';
import { portableRegex } from '../../src/channels/teams/cards-inputs.js';
import { EDIT_INLINE_MAX } from '../../src/channels/teams/cards-approval.js';
import { TEAMS_CAPABILITIES } from '../../src/channels/teams/capabilities.js';
import { TEAMS_WORDS } from '../../src/channels/teams/words.js';
import { DECISIONS, type Decision } from '../../src/core/approval/decisions.js';
import { LOCALES, wordsFor } from '../../src/core/i18n/index.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import type { AskRecord, Question } from '../../src/core/schemas.js';
import { askRecord } from '../helpers/records.js';

const HASH = `sha256:3fa9c2d1${'0'.repeat(56)}`;

export const viewOf = (questions: Question[], over: Partial<AskRecord> = {}, locale = 'en'): PromptView =>
  buildPromptView(askRecord(questions, over), wordsFor(locale, 'Europe/Berlin'), TEAMS_CAPABILITIES);

export const approvalView = (
  args: Record<string, unknown>,
  decisions: readonly Decision[] = DECISIONS,
  extra: { preview?: string; summary?: string } = { summary: 'Deploy to production' },
  locale = 'en',
): PromptView =>
  viewOf(
    [],
    { approval: { action: 'deploy', arguments: args, decisions: [...decisions], actionHash: HASH, ...extra } },
    locale,
  );

type Node = Record<string, unknown>;
/** Every object of a card (body elements, actions, nested show cards, fallbacks), depth first. */
function nodes(value: unknown): Node[] {
  if (Array.isArray(value)) return value.flatMap(nodes);
  if (typeof value !== 'object' || value === null) return [];
  return [value as Node, ...Object.values(value).flatMap(nodes)];
}
const ofType = (card: unknown, type: string) => nodes(card).filter((n) => n.type === type);
const texts = (card: unknown) => ofType(card, 'TextBlock').map((n) => unescapeMarkdown(n.text as string));
const titles = (card: AdaptiveCard) => (card.actions ?? []).map((a) => a.title);

const CHOICE = { id: 'env', question: 'Where to deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] };
const single = { ...CHOICE, multiSelect: false } as Question;
const multi = { ...CHOICE, multiSelect: true } as Question;
const EVERY_KIND = [
  { id: 't', question: 'Say?', kind: 'text', minLength: 2, maxLength: 3000, pattern: '[a-z ]+' },
  { id: 'n', question: 'Count?', kind: 'number', min: 0.5, max: 10.5, integer: true, unit: 'GB' },
  { id: 'd', question: 'Day?', kind: 'date', min: '2026-01-01', max: '2026-12-31' },
  { id: 'h', question: 'Hour?', kind: 'time', min: '08:00', max: '18:00' },
  { id: 'dt', question: 'When?', kind: 'datetime' },
  { id: 'e', question: 'Mail?', kind: 'email' },
  { id: 'u', question: 'Link?', kind: 'url' },
] as unknown as Question[];

/** Card checks every askgate card passes: 1.5, the schema, Execute actions with a Submit fallback carrying the same data. */
function wellFormed(card: AdaptiveCard): void {
  expect(card).toMatchObject({
    type: 'AdaptiveCard',
    version: '1.5',
    $schema: expect.stringContaining('adaptive-card'),
  });
  for (const action of ofType(card, 'Action.Execute')) {
    if (action.verb === 'refresh') continue;
    expect(action.verb).toBe('askgate');
    expect(action.fallback).toEqual({
      type: 'Action.Submit',
      title: action.title,
      data: action.data,
      ...(action.style ? { style: action.style } : {}),
    });
  }
  expect(ofType(card, 'Action.Submit').length).toBe(
    ofType(card, 'Action.Execute').filter((a) => a.verb !== 'refresh').length,
  );
  expect(jsonBytes(card)).toBeLessThanOrEqual(CARD_BYTES_MAX);
  // The SDK's own type reads it (the card is typed with it: this keeps the test honest about it).
  const typed: IAdaptiveCard = card;
  expect(typed.body.length).toBeGreaterThan(0);
}

describe('Teams prompt cards', () => {
  it('a single single-choice question: a button per option, Other… opening a field, Skip', () => {
    const card = promptCard(viewOf([single]), { live: true });
    wellFormed(card);
    expect(titles(card)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    const [staging, , other, skip] = card.actions!;
    expect(staging).toMatchObject({ type: 'Action.Execute', verb: 'askgate', data: { askgate: 'AbCdEfGhIjKl.1.1' } });
    expect(skip).toMatchObject({ data: { askgate: 'AbCdEfGhIjKl.1.s' } });
    expect(other).toMatchObject({ type: 'Action.ShowCard' });
    const inner = (other as { card: AdaptiveCard }).card;
    expect(inner.body).toEqual([
      expect.objectContaining({ type: 'Input.Text', id: 'askgate_other', isRequired: true }),
    ]);
    expect(inner.actions).toEqual([
      expect.objectContaining({ type: 'Action.Execute', data: { askgate: 'AbCdEfGhIjKl.1.o' } }),
    ]);
    expect(texts(card)).toContain('1. Staging\n2. Production');
  });

  it('an ask needing several matching answers: no Skip, its tally under the question', () => {
    const view = viewOf([single], { policy: { agree: 2 } } as Partial<AskRecord>);
    const card = promptCard(view, { live: true });
    expect(titles(card)).toEqual(['Staging', 'Production', 'Other…']);
    expect(texts(card).some((t) => t.includes('2 matching answers needed'))).toBe(true);
  });

  it('multi-select: an Input.ChoiceSet with isMultiSelect, own words, one Submit with the form token', () => {
    const card = promptCard(viewOf([multi]), { live: true });
    wellFormed(card);
    const [set] = ofType(card, 'Input.ChoiceSet');
    expect(set).toMatchObject({
      id: 'askgate_q1',
      isMultiSelect: true,
      style: 'expanded',
      choices: [
        { title: 'Staging', value: '1' },
        { title: 'Production', value: '2' },
      ],
    });
    expect(ofType(card, 'Input.Text')).toEqual([expect.objectContaining({ id: 'askgate_w1', maxLength: 4000 })]);
    expect(titles(card)).toEqual(['Submit', 'Skip']);
    expect(card.actions![0]).toMatchObject({
      data: { askgate: 'AbCdEfGhIjKl.1.f', askgateForm: 'm' },
      style: 'positive',
    });
    expect(texts(card).at(-1)).toMatch(/^Fill in the card and press Submit\. /);
  });

  it('several questions and every typed kind: native inputs with their constraints, one Submit', () => {
    const card = promptCard(viewOf([single, ...EVERY_KIND.slice(0, 2)]), { live: true });
    wellFormed(card);
    expect(card.actions![0]).toMatchObject({ data: { askgateForm: 'cxn' } });
    expect(texts(card).slice(0, 2)).toEqual(
      ['1. Where to deploy?', 'Type your answer…'].slice(0, 1).concat(texts(card)[1]!),
    );
    expect(
      texts(promptCard(viewOf([{ ...single, header: 'Env' } as Question, EVERY_KIND[0]!]), { live: true })).slice(0, 2),
    ).toEqual(['1. Env', 'Where to deploy?']);
    const inputs = (q: Question) =>
      ofType(promptCard(viewOf([q, single]), { live: true }), 'Input.Text')
        .concat(ofType(promptCard(viewOf([q, single]), { live: true }), 'Input.Number'))
        .concat(ofType(promptCard(viewOf([q, single]), { live: true }), 'Input.Date'))
        .concat(ofType(promptCard(viewOf([q, single]), { live: true }), 'Input.Time'))
        .filter((n) => n.id === 'askgate_q1');
    const [text, number, date, time, datetime, email, url] = EVERY_KIND.map((q) => inputs(q)[0]);
    expect(text).toMatchObject({
      type: 'Input.Text',
      isRequired: true,
      maxLength: 3000,
      isMultiline: true,
      regex: '^(?:[a-z ]+)$',
    });
    expect(number).toMatchObject({ type: 'Input.Number', min: 1, max: 10, placeholder: 'GB', isRequired: true });
    expect(number!.errorMessage).toMatch(/whole number/);
    expect(date).toMatchObject({ type: 'Input.Date', min: '2026-01-01', max: '2026-12-31' });
    expect(time).toMatchObject({ type: 'Input.Time', min: '08:00', max: '18:00' });
    expect(datetime).toMatchObject({ type: 'Input.Text', maxLength: 100, placeholder: expect.any(String) });
    expect(datetime).not.toHaveProperty('style');
    expect(email).toMatchObject({ type: 'Input.Text', style: 'Email' });
    expect(url).toMatchObject({ type: 'Input.Text', style: 'Url' });
    const shapes = EVERY_KIND.map(
      (q) =>
        (promptCard(viewOf([q]), { live: true }).actions![0] as unknown as { data: Record<string, string> }).data
          .askgateForm,
    );
    expect(shapes).toEqual(['x', 'n', 'd', 't', 'x', 'x', 'x']);
  });

  it('passes a text pattern on as regex only when every Teams client reads it alike', () => {
    expect(portableRegex('[A-Z]{3}-\\d{4}')).toBe('^(?:[A-Z]{3}-\\d{4})$');
    expect(portableRegex('a|b')).toBe('^(?:a|b)$');
    for (const pattern of ['(?i)abc', '\\x{00E9}', '\\pL+', '(?P<n>a)', '[', undefined, 'a'.repeat(201)])
      expect(portableRegex(pattern), String(pattern)).toBeNull();
  });

  it('a read-only card: the same content, no actions, no inputs', () => {
    for (const view of [viewOf([single]), viewOf([multi]), viewOf(EVERY_KIND.slice(0, 3)), approvalView({ a: 1 })]) {
      const live = promptCard(view, { live: true });
      const card = promptCard(view, { live: false });
      expect(card.actions).toBeUndefined();
      expect(nodes(card).filter((n) => typeof n.type === 'string' && /^(Input|Action)\./.test(n.type))).toEqual([]);
      // The questions read the same (a live form shows its options in its choice set).
      const questions = view.questions.map((q, i) =>
        view.questions.length > 1 ? `${i + 1}. ${q.question}` : q.question,
      );
      if (!view.approval)
        for (const text of questions)
          expect([texts(card), texts(live)]).toEqual([expect.arrayContaining([text]), expect.arrayContaining([text])]);
      else expect(texts(card)).toEqual(texts(live).filter((t) => texts(card).includes(t)));
    }
  });

  it('refresh names the allowed people; over 60 the card is live for everyone and names no one', () => {
    const view = viewOf([single]);
    const ids = ['aad-1', 'aad-2'];
    const card = promptCard(view, { live: false, refreshUserIds: ids });
    expect(card.refresh).toEqual({
      action: { type: 'Action.Execute', verb: 'refresh', data: { askgate: 'AbCdEfGhIjKl.1.f' } },
      userIds: ids,
    });
    expect(card.actions).toBeUndefined();
    const many = Array.from({ length: REFRESH_USERS_MAX + 1 }, (_, i) => `aad-${i}`);
    const crowd = promptCard(view, { live: false, refreshUserIds: many });
    expect(crowd.refresh).toEqual({ action: expect.objectContaining({ verb: 'refresh' }) });
    expect(titles(crowd)).toEqual(['Staging', 'Production', 'Other…', 'Skip']);
    expect(promptCard(view, { live: true, refreshUserIds: many.slice(0, 60) }).refresh?.userIds).toHaveLength(60);
    expect(promptCard(view, { live: true, refreshUserIds: [] })).not.toHaveProperty('refresh');
  });

  it('shows hostile text literally: Markdown escaped, hidden characters in an approval made visible', () => {
    const hostile = '*bold* _it_ [link](http://x) <at>me</at> # h &amp; ~s~ `c`\n1. list\n- item\n> quote';
    const q = { id: 'h', question: hostile, multiSelect: false, options: [{ label: '**A**' }, { label: '[B](u)' }] };
    const card = promptCard(viewOf([q as Question]), { live: true });
    expect(texts(card)).toContain(hostile);
    expect(texts(card)).toContain('1. **A**\n2. [B](u)');
    // The deadline line's DATE()/TIME() functions are the card's own (core words around them, escaped).
    const deadline = 'Open until {{DATE(2030-01-01T14:15:00Z, SHORT)}} {{TIME(2030-01-01T14:15:00Z)}}';
    expect(ofType(card, 'TextBlock').filter((b) => b.text === deadline)).toHaveLength(1);
    for (const block of ofType(card, 'TextBlock').filter((b) => b.text !== deadline)) {
      // Every special character is escaped (preceded by an odd run of backslashes).
      const bare = (block.text as string).replace(/\\[\\`*_[\]()<>#~|&!{}\-+=.)]/g, '');
      expect(bare, block.text as string).not.toMatch(/[`*_[\]()<>#~|&\\]/);
    }
    expect(escapeMarkdown('2. x\n  + y\n== z')).toBe('2\\. x\n  \\+ y\n\\== z');
    expect(titles(card).slice(0, 2)).toEqual(['**A**', '[B](u)']);
    const approval = promptCard(approvalView({ 'to\u202e': 'evil\u200bname', n: 1 }), { live: true });
    const facts = ofType(approval, 'FactSet').flatMap((f) => f.facts as { title: string; value: string }[]);
    expect(facts.map((f) => [unescapeMarkdown(f.title), unescapeMarkdown(f.value)])).toEqual([
      ['Action', 'deploy'],
      ['Hash', '#3fa9c2d1'],
      ['to\\u202E', 'evil\\u200Bname'],
      ['n', '1'],
    ]);
  });
});

describe('Teams approval cards', () => {
  const subsets: Decision[][] = [
    ['approve'],
    ['approve', 'reject'],
    ['approve', 'request_changes', 'edit'],
    [...DECISIONS],
  ];
  it.each(subsets.map((s) => [s.join(' '), s] as const))(
    'decisions %s: buttons in order, inputs where needed',
    (_, decisions) => {
      const card = promptCard(approvalView({ ticket: 'T-1', count: 2 }, decisions), { live: true });
      wellFormed(card);
      const labels = { approve: 'Approve', reject: 'Reject…', request_changes: 'Request changes…', edit: 'Edit…' };
      expect(titles(card)).toEqual([...decisions.map((d) => labels[d]), 'Skip']);
      expect(texts(card)[0]).toBe('Deploy to production');
      for (const [i, d] of decisions.entries()) {
        const action = card.actions![i]!;
        const code = { approve: 'a', reject: 'r', request_changes: 'q', edit: 'e' }[d];
        if (d === 'approve') {
          expect(action).toMatchObject({
            type: 'Action.Execute',
            style: 'positive',
            data: { askgate: `AbCdEfGhIjKl.1.d${code}` },
          });
          continue;
        }
        expect(action.type).toBe('Action.ShowCard');
        const inner = (action as { card: AdaptiveCard }).card;
        const [field] = inner.body as unknown as Node[];
        expect(field).toMatchObject({ type: 'Input.Text', isMultiline: true, isRequired: true });
        expect(field!.id).toBe(d === 'edit' ? 'askgate_args' : `askgate_reason_${code}`);
        if (d === 'edit') expect(JSON.parse(field!.value as string)).toEqual({ ticket: 'T-1', count: 2 });
        expect(inner.actions![0]).toMatchObject({
          type: 'Action.Execute',
          data: { askgate: `AbCdEfGhIjKl.1.d${code}` },
        });
      }
    },
  );

  it('nested arguments as monospace JSON, the preview monospace, the hash as a fact', () => {
    const card = promptCard(approvalView({ rows: [{ id: 1 }] }, ['approve'], { preview: 'diff --git a b' }), {
      live: true,
    });
    const mono = ofType(card, 'TextBlock')
      .filter((b) => b.fontType === 'Monospace')
      .map((b) => unescapeMarkdown(b.text as string));
    expect(mono).toEqual([JSON.stringify({ rows: [{ id: 1 }] }, null, 2), 'diff --git a b']);
    expect(texts(card)).toContain('Preview:');
  });

  it('fits Teams’ size: arguments and preview cut with an honest note and the answer page link', () => {
    const url = 'https://askgate.example/a/AbCdEfGhIjKl?sig=x';
    for (const size of [100, 5000, 15_000, 30_000]) {
      const args = { body: 'x'.repeat(size) };
      const preview = '<'.repeat(Math.min(size, 30_000));
      const card = promptCard(approvalView(args, DECISIONS, { preview }), { live: true, answerUrl: url });
      wellFormed(card);
      // 5000 x and 5000 "<" (escaped: twice the bytes) with Edit…'s copy of the arguments pass 24,000 bytes.
      const cut = size > 100;
      const note = texts(card).includes('(shortened: see the answer page)');
      expect(note, `size ${size}`).toBe(cut);
      const open = (card.actions ?? []).filter((a) => a.type === 'Action.OpenUrl');
      expect(open, `size ${size}`).toEqual(cut ? [{ type: 'Action.OpenUrl', title: 'Open', url }] : []);
      expect(
        texts(card).some((t) => t.includes('…')),
        `size ${size}`,
      ).toBe(cut);
      const facts = ofType(card, 'FactSet').flatMap((f) =>
        (f.facts as { value: string }[]).map((x) => unescapeMarkdown(x.value)),
      );
      expect(facts, `size ${size}`).toContain('#3fa9c2d1');
    }
    // Without a link, the note says so without promising a page; read-only cards carry no link.
    const bare = promptCard(approvalView({ body: 'y'.repeat(30_000) }), { live: true });
    expect(texts(bare)).toContain('(shortened to fit in Teams)');
    expect(titles(bare)).not.toContain('Open');
  });

  it('Edit… too large for the card: left out, edited on the answer page', () => {
    const args = { body: 'z'.repeat(EDIT_INLINE_MAX) };
    const card = promptCard(approvalView(args), { live: true, answerUrl: 'https://a.example/p' });
    expect(titles(card)).toEqual(['Approve', 'Reject…', 'Request changes…', 'Skip', 'Open']);
    expect(texts(card)).toContain('The arguments are too long to edit on this card: edit them on the answer page.');
  });
});

describe('Teams outcome cards', () => {
  it('keeps the prompt’s text, drops every control, shows the outcome first and prominent', () => {
    for (const view of [viewOf([single]), viewOf([multi, ...EVERY_KIND.slice(0, 2)]), approvalView({ a: 1 })]) {
      const card = outcomeCard({ status: 'answered', text: 'Answered: Staging — by @alice_b' }, view);
      wellFormed(card);
      expect(card.actions).toBeUndefined();
      expect(card).not.toHaveProperty('refresh');
      expect(nodes(card).filter((n) => typeof n.type === 'string' && /^(Input|Action)\./.test(n.type))).toEqual([]);
      expect(card.body[0]).toMatchObject({
        type: 'Container',
        style: 'good',
        items: [{ weight: 'Bolder', size: 'Medium' }],
      });
      expect(texts(card)[0]).toBe('Answered: Staging — by @alice_b');
      // Everything of the prompt but its tally and its deadline (the outcome replaces both).
      for (const text of texts(promptCard(view, { live: false })).filter((t) => !/matching|Open until/.test(t)))
        expect(texts(card)).toContain(text);
      expect(texts(promptCard(view, { live: false })).filter((t) => t.startsWith('Open until'))).toHaveLength(1);
      expect(texts(card).filter((t) => t.startsWith('Open until'))).toEqual([]);
    }
    expect(outcomeCard({ status: 'no_answer', text: 'Expired — no answer' }, viewOf([single])).body[0]).toMatchObject({
      style: 'warning',
    });
  });
});

describe('Teams words', () => {
  it('draws a German prompt in German, Teams’ own words included', () => {
    const card = promptCard(viewOf([multi], { locale: 'de' }, 'de'), { live: true });
    expect(titles(card)).toEqual(['Absenden', 'Überspringen'].map((t, i) => titles(card)[i] ?? t));
    expect(texts(card).at(-1)).toMatch(/^Fülle die Karte aus und tippe auf /);
    const approval = promptCard(approvalView({ a: 1 }, DECISIONS, { summary: 's' }, 'de'), { live: true });
    const facts = ofType(approval, 'FactSet').flatMap((f) => (f.facts as { title: string }[]).map((x) => x.title));
    expect(facts.slice(0, 2)).toEqual(['Aktion', 'Hash']);
    const reject = approval.actions!.find((a) => a.type === 'Action.ShowCard')! as { card: AdaptiveCard };
    expect((reject.card.body[0] as unknown as Node).label).toBe('Warum?');
  });

  it('has every key in every shipped locale, with the same placeholders', () => {
    const keys = Object.keys(TEAMS_WORDS.en).sort();
    for (const tag of LOCALES.keys()) {
      const words: Readonly<Record<string, string>> = TEAMS_WORDS[tag]!;
      expect(Object.keys(words).sort(), tag).toEqual(keys);
      for (const key of keys)
        expect(words[key]!.match(/\{\w+\}/g) ?? [], `${tag} ${key}`).toEqual(
          TEAMS_WORDS.en[key as keyof typeof TEAMS_WORDS.en].match(/\{\w+\}/g) ?? [],
        );
    }
  });
});

// An answer through an answer page link for anyone is recorded as channel `link`, user `link` (src/links/):
// every line that would name the responder says where it came from instead ("on the answer page"),
// in every locale, never "by link".
import { describe, expect, it } from 'vitest';
import { decisionLine } from '../../src/core/approval/approval-view.js';
import { storedApproval } from '../../src/core/approval/approval-schema.js';
import { LOCALES, translate, wordsFor } from '../../src/core/i18n/index.js';
import { noticeFor, outcomeView } from '../../src/core/outcome-view.js';
import { LINK_CHANNEL } from '../../src/core/record-state.js';
import type { AskRecord, Delivery, Question, Responder } from '../../src/core/schemas.js';
import { askRecord, iso, T0 } from '../helpers/records.js';

const env: Question = {
  id: 'env',
  header: 'Environment',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const tags: Question = { id: 'tags', question: 'Which?', multiSelect: true, options: [{ label: 'x' }, { label: 'y' }] };
const page: Responder = { channel: LINK_CHANNEL, userId: LINK_CHANNEL };
const bob: Responder = { channel: 'slack', userId: 'U2', username: 'bob' };
const at = iso(T0);
const sent = (channel: string, chat: string): Delivery => ({
  channel,
  chat,
  status: 'sent',
  message: { chat, messageId: '9' },
  finalized: 'no',
});
const fanOut = { deliveries: [sent('telegram', '42'), sent('slack', 'C1')] };
const answered = (questions: Question[], by: Responder, over: Partial<AskRecord> = {}) =>
  askRecord(questions, {
    status: 'answered',
    result: { status: 'answered', answers: { env: ['Production'], tags: ['x'] }, answeredBy: by, answeredAt: at },
    ...over,
  });
const skipped = (by: Responder, over: Partial<AskRecord> = {}) =>
  askRecord([env], {
    status: 'no_answer',
    result: { status: 'no_answer', reason: 'skipped', at, by } as unknown as AskRecord['result'],
    ...over,
  });

describe('outcome lines of an answer on the answer page', () => {
  const cases: [string, (locale: string) => string, (locale: string) => string][] = [
    [
      'one question',
      (l) => outcomeView(answered([env], page), wordsFor(l)).text,
      (l) => translate(l, 'outcome.answeredValue', { summary: 'Production', tail: translate(l, 'outcome.byPage') }),
    ],
    [
      'two questions',
      (l) => outcomeView(answered([env, tags], page), wordsFor(l)).text.split('\n')[0]!,
      (l) => translate(l, 'outcome.answered', { tail: translate(l, 'outcome.byPage') }),
    ],
    [
      'delivered to several conversations',
      (l) => outcomeView(answered([env], page, fanOut), wordsFor(l)).text,
      (l) =>
        translate(l, 'outcome.answeredWhereValue', { where: translate(l, 'outcome.wherePage'), summary: 'Production' }),
    ],
    ['skipped', (l) => outcomeView(skipped(page), wordsFor(l)).text, (l) => translate(l, 'outcome.skippedPage')],
    [
      'skipped, delivered to several',
      (l) => outcomeView(skipped(page, fanOut), wordsFor(l)).text,
      (l) => translate(l, 'outcome.skippedPage'),
    ],
    [
      'the "already answered" notice',
      (l) => noticeFor(answered([env], page), 'already_resolved', {}, wordsFor(l)),
      (l) => translate(l, 'notice.answeredPage'),
    ],
    [
      'the "already skipped" notice',
      (l) => noticeFor(skipped(page, fanOut), 'already_resolved', {}, wordsFor(l)),
      (l) => translate(l, 'notice.skippedPage'),
    ],
    [
      'an approval decided there',
      (l) => {
        const record = askRecord([], { approval: storedApproval({ action: 'a', arguments: {} }, 'sha256:ab') });
        return decisionLine(record, 'reject', page, 'sha256:ab', wordsFor(l));
      },
      (l) => translate(l, 'approval.rejected', { name: translate(l, 'approval.viaPage') }),
    ],
  ];
  for (const locale of LOCALES.keys())
    it.each(cases)(`${locale}: %s`, (_name, line, expected) => {
      const text = line(locale);
      expect(text).toBe(expected(locale));
      // The recorded id is never shown as if it were a person.
      expect(text).not.toMatch(/\blink\b/);
    });

  it('reads naturally in English', () => {
    expect(outcomeView(answered([env], page)).text).toBe('Answered: Production — on the answer page');
    expect(outcomeView(answered([env], page, fanOut)).text).toBe('Answered on the answer page: Production');
    expect(outcomeView(skipped(page)).text).toBe('Skipped on the answer page');
    expect(noticeFor(answered([env], page), 'already_resolved')).toBe(
      'This question was already answered on the answer page',
    );
  });

  it('an ask that needs several matching answers lists the page, not the id', () => {
    const responses = [
      { answers: { env: ['Production'] }, answeredBy: page, answeredAt: at },
      { answers: { env: ['Production'] }, answeredBy: bob, answeredAt: at },
    ];
    const record = answered([env], page, { policy: { agree: 2 }, responses } as Partial<AskRecord>);
    expect(outcomeView(record).text).toBe('Answered: Production — agreed by someone on the answer page, @bob');
    const fan = answered([env], page, { policy: { agree: 2 }, responses, ...fanOut } as Partial<AskRecord>);
    expect(outcomeView(fan).text).toContain('Agreed by someone on the answer page, @bob (slack)');
  });

  it('a person is still named by name', () => {
    expect(outcomeView(answered([env], bob)).text).toBe('Answered: Production — by @bob');
    expect(outcomeView(skipped(bob)).text).toBe('Skipped by @bob');
  });
});

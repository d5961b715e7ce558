import { describe, expect, it } from 'vitest';
import { askRecord, iso, T0 } from '../helpers/records.js';
import { buildPromptView } from '../../src/core/prompt-view.js';
import { noticeFor as coreNotice, outcomeView as coreOutcome } from '../../src/core/outcome-view.js';
import {
  channelDisplayName as coreChannelName,
  isFanOut,
  reminderText,
  tallyLines as coreTally,
} from '../../src/core/policy-view.js';
import { answersKey } from '../../src/core/policy.js';
import { decodeToken } from '../../src/core/token.js';
import type { AskRecord, Delivery, Question, Responder, Response } from '../../src/core/schemas.js';
import { wordsFor, wordsOf } from '../../src/core/i18n/index.js';
import { CHANNEL_DISPLAY_NAMES } from '../../src/channels/registry.js';
import { consoleView } from '../../src/console/view.js';

// Core names no platform: the shell's words carry the channel registry's names, as these wrappers pass them.
const named = (record: Pick<AskRecord, 'locale' | 'timeZone'>) => wordsOf(record, undefined, CHANNEL_DISPLAY_NAMES);
const channelDisplayName = (channel: string) => coreChannelName(channel, wordsFor(null, null, CHANNEL_DISPLAY_NAMES));
const outcomeView = (record: AskRecord) => coreOutcome(record, named(record));
const tallyLines = (record: Parameters<typeof coreTally>[0]) => coreTally(record, named(record));
const noticeFor = (record: AskRecord, code: Parameters<typeof coreNotice>[1], options = {}) =>
  coreNotice(record, code, options, named(record));

const approve: Question = {
  id: 'go',
  question: 'Ship it?',
  multiSelect: false,
  options: [{ label: 'Approve' }, { label: 'Reject' }],
};
const env: Question = {
  id: 'env',
  header: 'Environment',
  question: 'Where?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
const tags: Question = {
  id: 'tags',
  header: 'Tags',
  question: 'Which?',
  multiSelect: true,
  options: [{ label: 'a' }, { label: 'b' }, { label: 'c' }],
};

const alice: Responder = { channel: 'telegram', userId: '1', name: 'Alice' };
const bob: Responder = { channel: 'slack', userId: 'U2', username: 'bob' };
const carol: Responder = { channel: 'discord', userId: '333', username: 'carol' };
const api: Responder = { channel: 'api', userId: 'ops' };

const delivery = (channel: string, chat: string, extra: Partial<Delivery> = {}): Delivery => ({
  channel,
  chat,
  status: 'sent',
  message: { chat, messageId: '9' },
  finalized: 'no',
  ...extra,
});
const fanOut = [delivery('telegram', '42'), delivery('slack', 'C1'), delivery('discord', '555')];
const single = [delivery('telegram', '42')];
const respond = (by: Responder, answers: Record<string, string[]>): Response => ({
  answers,
  answeredBy: by,
  answeredAt: iso(T0),
});
const rec = (questions: Question[], over: Partial<AskRecord> = {}) =>
  askRecord(questions, { deliveries: single, ...over });

describe('channel names', () => {
  it.each([
    ['telegram', 'Telegram'],
    ['slack', 'Slack'],
    ['discord', 'Discord'],
    ['web', 'the console'],
    ['api', 'the API'],
    ['test', 'test'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
  ])('%s is shown as %s', (channel, shown) => expect(channelDisplayName(channel)).toBe(shown));
});

describe('reminderText', () => {
  const expiresAt = iso(T0 + 25 * 60_000); // 14:25 UTC
  it.each([
    [T0, 'Reminder: this question is still open. It expires at 14:25 UTC (in 25 minutes).'],
    [T0 + 24 * 60_000, 'Reminder: this question is still open. It expires at 14:25 UTC (in 1 minute).'],
    [
      T0 + 24 * 60_000 + 30_000,
      'Reminder: this question is still open. It expires at 14:25 UTC (in less than a minute).',
    ],
    [T0 + 25 * 60_000, 'Reminder: this question is about to expire (14:25 UTC).'],
    [T0 + 26 * 60_000, 'Reminder: this question is about to expire (14:25 UTC).'],
  ])('at %s', (now, text) => expect(reminderText({ expiresAt }, now)).toBe(text));

  it('adds the date when the deadline is more than a day away, and hours in between', () => {
    expect(reminderText({ expiresAt: iso(T0 + 3 * 86_400_000) }, T0)).toBe(
      'Reminder: this question is still open. It expires on 2030-01-04 at 14:00 UTC (in about 3 days).',
    );
    expect(reminderText({ expiresAt: iso(T0 + 5 * 3_600_000) }, T0)).toBe(
      'Reminder: this question is still open. It expires at 19:00 UTC (in about 5 hours).',
    );
  });

  it('says nothing about a deadline that does not parse', () => {
    expect(reminderText({ expiresAt: 'not a date' }, T0)).toBe('Reminder: this question is still open.');
  });
});

describe('tally lines (agree > 1)', () => {
  it('are absent for an ask that needs one answer, and count nobody before the first answer', () => {
    expect(tallyLines(rec([approve]))).toEqual([]);
    expect(buildPromptView(rec([approve])).tally).toBeUndefined();
    expect(tallyLines(rec([approve], { policy: { agree: 2 } }))).toEqual([
      'No answers yet — 2 matching answers needed',
    ]);
  });

  it('count matching answers, most first, and list who answered (never free text)', () => {
    const record = rec([approve], {
      policy: { agree: 3 },
      responses: [
        respond(alice, { go: ['Reject'] }),
        respond(bob, { go: ['Approve'] }),
        respond(carol, { go: ['Approve'] }),
        respond({ channel: 'telegram', userId: '4', name: 'Dave' }, { go: ['ship it, password hunter2'] }),
      ],
    });
    expect(tallyLines(record)).toEqual([
      'Approve 2 · Reject 1 · their own words 1 — 3 matching answers needed',
      'Answered: Alice, @bob, @carol, Dave',
    ]);
    expect(tallyLines(record).join('\n')).not.toContain('hunter2');
  });

  it('name the channel of each person when the ask went to several conversations', () => {
    const record = rec([approve], {
      deliveries: fanOut,
      policy: { agree: 2 },
      responses: [respond(alice, { go: ['Approve'] }), respond(bob, { go: ['Reject'] })],
    });
    expect(tallyLines(record)).toEqual([
      'Approve 1 · Reject 1 — 2 matching answers needed',
      'Answered: Alice (Telegram), @bob (Slack)',
    ]);
    // The console (shell) passes the registry's names too.
    const agree = consoleView({ ...record, status: 'pending' }).policy?.agree;
    expect([agree?.tally[1], agree?.tallies.en?.[1]]).toEqual([
      'Answered: Alice (Telegram), @bob (Slack)',
      'Answered: Alice (Telegram), @bob (Slack)',
    ]);
  });

  it('group multi-select and multi-question answers by their sorted values', () => {
    const ids = [{ id: 'env' }, { id: 'tags' }];
    expect(answersKey(ids, { env: ['Staging'], tags: ['b', 'a'] })).toBe(
      answersKey(ids, { tags: ['a', 'b'], env: ['Staging'] }),
    );
    expect(answersKey(ids, { env: ['Staging'] })).not.toBe(answersKey(ids, { env: ['Staging'], tags: ['a'] }));
    const record = rec([env, tags], {
      policy: { agree: 2 },
      responses: [
        respond(alice, { env: ['Staging'], tags: ['b', 'a'] }),
        respond(bob, { env: ['Staging'], tags: ['a', 'b'] }),
      ],
    });
    expect(tallyLines(record)[0]).toBe('Staging / b, a 2 — 2 matching answers needed');
  });

  it('keep hostile names as plain text, invisible characters dropped, long names cut on a grapheme', () => {
    const hostile: Responder[] = [
      { channel: 'discord', userId: '1', name: '@everyone' },
      { channel: 'slack', userId: '2', name: '<!channel> *bold* <https://evil|x>' },
      { channel: 'telegram', userId: '3', name: `\u202Eevil\u200B` },
      { channel: 'telegram', userId: '4', name: `${'👩‍👩‍👧‍👦'.repeat(40)}` },
    ];
    const record = rec([approve], {
      policy: { agree: 2 },
      responses: hostile.map((by) => respond(by, { go: ['Approve'] })),
    });
    const [, names] = tallyLines(record);
    expect(names).toContain('@everyone');
    expect(names).toContain('<!channel> *bold* <https://evil|x>'.slice(0, 31));
    expect(names).toContain(', evil, ');
    expect(names).not.toMatch(/[\u202E\u200B]/);
    const family = names!.split(', ').at(-1)!;
    expect(family.endsWith('…')).toBe(true);
    expect(family.replace('…', '')).toBe('👩‍👩‍👧‍👦'.repeat(31));
  });

  it('list at most 10 names, and at most 6 distinct answers', () => {
    const people = Array.from({ length: 13 }, (_, i): Responder => ({
      channel: 'slack',
      userId: `U${i}`,
      name: `P${i}`,
    }));
    const record = rec([approve], {
      policy: { agree: 10 },
      responses: people.map((by, i) => respond(by, { go: [i < 2 ? 'Approve' : `free text ${i}`] })),
    });
    const [counts, names] = tallyLines(record);
    expect(names).toBe('Answered: P0, P1, P2, P3, P4, P5, P6, P7, P8, P9 and 3 more');
    expect(counts).toBe(
      'Approve 2 · their own words 1 · their own words 1 · their own words 1 · their own words 1 · their own words 1 · 6 more — 10 matching answers needed',
    );
  });

  it('build a prompt without Skip (a skip cannot agree), saying how many must agree', () => {
    const view = buildPromptView(
      rec([approve], { policy: { agree: 2 }, responses: [respond(alice, { go: ['Approve'] })] }),
    );
    expect(view.buttons!.map((b) => b.kind)).toEqual(['option', 'option', 'other']);
    expect(view.buttons!.map((b) => decodeToken(b.token)?.choice.kind)).toEqual(['option', 'option', 'other']);
    expect(view.instructions).toBe(
      'Tap an option, or reply to this message with your own words. 2 matching answers are needed; you may change yours until then.',
    );
    expect(view.tally).toEqual(['Approve 1 — 2 matching answers needed', 'Answered: Alice']);
    const text = buildPromptView(rec([env, tags], { policy: { agree: 3 } }));
    expect(text.instructions).not.toMatch(/skip/i);
    expect(text.instructions).toMatch(/^Reply with a number, an option name or your own words\. 3 matching answers/);
  });
});

const answeredBy = (
  questions: Question[],
  by: Responder,
  answers: Record<string, string[]>,
  over: Partial<AskRecord> = {},
) =>
  rec(questions, {
    status: 'answered',
    result: { status: 'answered', answers, answeredBy: by, answeredAt: iso(T0) },
    ...over,
  });

describe('outcome of a fan-out ask', () => {
  it('is the familiar line for one conversation, and names where for several', () => {
    expect(isFanOut({ deliveries: single })).toBe(false);
    expect(isFanOut({ deliveries: [delivery('slack', 'C1'), delivery('slack', 'C1', { thread: '1.2' })] })).toBe(true);
    expect(outcomeView(answeredBy([env], bob, { env: ['Production'] })).text).toBe('Answered: Production — by @bob');
    expect(outcomeView(answeredBy([env], bob, { env: ['Production'] }, { deliveries: fanOut }))).toEqual({
      status: 'answered',
      text: 'Answered in Slack by @bob: Production',
    });
    const shown = consoleView(answeredBy([env], bob, { env: ['Production'] }, { deliveries: fanOut })).outcome;
    expect([shown?.text, shown?.texts.en]).toEqual([
      'Answered in Slack by @bob: Production',
      'Answered in Slack by @bob: Production',
    ]);
    expect(outcomeView(answeredBy([env], api, { env: ['Staging'] }, { deliveries: fanOut })).text).toBe(
      'Answered via the API: Staging',
    );
    expect(
      outcomeView(
        answeredBy([env], { channel: 'web', userId: 'op', name: 'op' }, { env: ['x'] }, { deliveries: fanOut }),
      ).text,
    ).toBe('Answered in the console by op: their own words');
    expect(
      outcomeView(answeredBy([env, tags], carol, { env: ['Staging'], tags: ['a'] }, { deliveries: fanOut })).text,
    ).toBe('Answered in Discord by @carol\n1. Environment: Staging\n2. Tags: a');
  });

  it('names who agreed, with their channels when fan-out', () => {
    const responses = [
      respond(alice, { go: ['Approve'] }),
      respond(carol, { go: ['Reject'] }),
      respond(bob, { go: ['Approve'] }),
    ];
    const over = { policy: { agree: 2 }, responses };
    expect(outcomeView(answeredBy([approve], bob, { go: ['Approve'] }, over)).text).toBe(
      'Answered: Approve — agreed by Alice, @bob',
    );
    expect(outcomeView(answeredBy([approve], bob, { go: ['Approve'] }, { ...over, deliveries: fanOut })).text).toBe(
      'Answered in Slack by @bob: Approve\nAgreed by Alice (Telegram), @bob (Slack)',
    );
  });

  it('says the default was taken on a timeout with defaults, and never calls it an answer', () => {
    const timeout = (
      defaults: Record<string, string[]> | undefined,
      questions: Question[],
      over: Partial<AskRecord> = {},
    ) =>
      rec(questions, {
        status: 'no_answer',
        result: { status: 'no_answer', reason: 'timeout', at: iso(T0), ...(defaults ? { defaults } : {}) },
        ...over,
      });
    expect(outcomeView(timeout({ env: ['Production'] }, [env]))).toEqual({
      status: 'no_answer',
      text: 'No answer in time: the default was taken (Production)',
    });
    expect(outcomeView(timeout({ tags: ['a', 'c'] }, [env, tags])).text).toBe(
      'No answer in time: the defaults were taken\n2. Tags: a, c',
    );
    expect(outcomeView(timeout(undefined, [env])).text).toBe('Expired — no answer');
    expect(outcomeView(timeout({}, [env])).text).toBe('Expired — no answer');
    expect(
      outcomeView(
        timeout(undefined, [approve], { policy: { agree: 2 }, responses: [respond(alice, { go: ['Reject'] })] }),
      ).text,
    ).toBe('Expired — not enough matching answers (2 needed)');
    const stale = timeout({ go: ['Approve'] }, [approve]);
    expect(noticeFor(stale, 'expired')).toBe('This question expired at 14:15 UTC; the default was taken');
    expect(noticeFor(timeout({ env: ['Staging'], tags: ['a'] }, [env, tags]), 'already_resolved')).toBe(
      'This question expired at 14:15 UTC; the defaults were taken',
    );
  });

  it('names where a skip came from when fan-out', () => {
    const skipped = (over: Partial<AskRecord>) =>
      rec([env], {
        status: 'no_answer',
        result: { status: 'no_answer', reason: 'skipped', at: iso(T0), by: carol },
        ...over,
      });
    expect(outcomeView(skipped({})).text).toBe('Skipped by @carol');
    expect(outcomeView(skipped({ deliveries: fanOut })).text).toBe('Skipped in Discord by @carol');
    expect(noticeFor(skipped({ deliveries: fanOut }), 'already_resolved')).toBe(
      'This question was already skipped by @carol in Discord',
    );
  });
});

describe('notices', () => {
  it('"already answered by … in …" for a fan-out ask only', () => {
    expect(noticeFor(answeredBy([env], bob, { env: ['Staging'] }), 'already_resolved')).toBe(
      'This question was already answered by @bob',
    );
    expect(noticeFor(answeredBy([env], bob, { env: ['Staging'] }, { deliveries: fanOut }), 'already_resolved')).toBe(
      'This question was already answered by @bob in Slack',
    );
    expect(noticeFor(answeredBy([env], api, { env: ['Staging'] }, { deliveries: fanOut }), 'already_resolved')).toBe(
      'This question was already answered via API',
    );
  });

  it('"Answer recorded" says how far an agreement got while it is open', () => {
    const open = rec([approve], {
      policy: { agree: 3 },
      responses: [
        respond(alice, { go: ['Approve'] }),
        respond(bob, { go: ['Approve'] }),
        respond(carol, { go: ['Reject'] }),
      ],
    });
    expect(noticeFor(open, 'recorded')).toBe('Answer recorded: 2 of 3 matching answers so far');
    expect(noticeFor(rec([approve]), 'recorded')).toBe('Answer recorded');
  });

  it('"This question is for …" lists the users of the deliveries where the person tried', () => {
    const record = rec([env], {
      targets: [
        { channel: 'slack', chat: 'C1', users: ['U1', 'U2'] },
        { channel: 'discord', chat: '555', users: ['99'] },
      ],
      deliveries: [delivery('slack', 'C1', { users: ['U1', 'U2'] }), delivery('discord', '555', { users: ['99'] })],
    });
    const mention = (id: string) => `<@${id}>`;
    expect(noticeFor(record, 'forbidden', { mention, channel: 'slack', chat: 'C1' })).toBe(
      'This question is for <@U1>, <@U2>',
    );
    expect(noticeFor(record, 'forbidden', { mention, channel: 'discord' })).toBe('This question is for <@99>');
    expect(noticeFor(record, 'forbidden', { mention, channel: 'telegram' })).toBe('This question is not for you');
  });
});

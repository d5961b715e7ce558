// The pieces of Telegram's approval force-reply (src/channels/telegram/approval-replies.ts): which
// decision a prompt asks for, how a reply becomes what the core reads, what is told when it fails.
import { describe, expect, it } from 'vitest';
import type { Message } from 'grammy/types';
import { wordsFor } from '../../src/core/i18n/index.js';
import {
  askedDecision,
  asDecisionReply,
  decisionPrompt,
  problemOf,
  promptDecision,
  readArgumentLines,
} from '../../src/channels/telegram/approval-replies.js';
import { encodeToken } from '../../src/core/token.js';

const bot = { id: 1, is_bot: true, first_name: 'askgate' };
const prompt = (text: string, from = bot) =>
  ({ message_id: 5, date: 0, chat: { id: 1, type: 'private' }, from, text }) as unknown as Message;

describe('Telegram approval prompts', () => {
  it('a decision tap asks words for reject, request changes and edit, never for approve', () => {
    const token = (decision: 'approve' | 'reject' | 'request_changes' | 'edit') =>
      encodeToken({ askId: 'abcdefghijkl', version: 1, choice: { kind: 'decide', decision } });
    expect(askedDecision(token('approve'))).toBeNull();
    expect(askedDecision(token('reject'))).toBe('reject');
    expect(askedDecision(token('request_changes'))).toBe('request_changes');
    expect(askedDecision(token('edit'))).toBe('edit');
    expect(askedDecision('forged')).toBeNull();
  });

  it('the prompt names the decision on its first line, in the person’s language, and is read back in any', () => {
    const pt = decisionPrompt('reject', wordsFor('pt-BR'));
    expect(pt.text.split('\n')[0]).toBe(wordsFor('pt-BR').t('control.reject'));
    expect(promptDecision(prompt(pt.text))).toBe('reject');
    expect(promptDecision(prompt(decisionPrompt('edit', wordsFor('ja')).text))).toBe('edit');
    expect(promptDecision(prompt(decisionPrompt('request_changes', wordsFor('en'), 'x').text))).toBe('request_changes');
    // A person's message, or a bot message that is not such a prompt, is no prompt.
    expect(promptDecision(prompt(pt.text, { ...bot, is_bot: false }))).toBeNull();
    expect(promptDecision(prompt('Reply with your answer in your own words'))).toBeNull();
    expect(promptDecision(undefined)).toBeNull();
  });
});

describe('Telegram approval replies', () => {
  it('a reason goes with the decision’s word; a word typed anyway is not doubled', () => {
    expect(asDecisionReply('reject', 'wrong quarter')).toBe('reject: wrong quarter');
    expect(asDecisionReply('reject', 'Reject: wrong quarter')).toBe('reject: wrong quarter');
    expect(asDecisionReply('request_changes', 'two replicas')).toBe('request changes: two replicas');
  });

  it('an edit is JSON as sent, or `key: value` lines turned into JSON (values JSON when they parse)', () => {
    expect(asDecisionReply('edit', '{"a": 1}')).toBe('edit: {"a": 1}');
    expect(asDecisionReply('edit', 'edit: {"a": 1}')).toBe('edit: {"a": 1}');
    expect(
      readArgumentLines('to: cfo@example.com\ncount: 3\nlive: true\nurl: https://x.test/a\ntags: ["a"]\nnote: "3"'),
    ).toEqual({
      to: 'cfo@example.com',
      count: 3,
      live: true,
      url: 'https://x.test/a',
      tags: ['a'],
      note: '3',
    });
    expect(asDecisionReply('edit', 'to: cfo@example.com\n\ncount: 3')).toBe('edit: {"to":"cfo@example.com","count":3}');
    expect(readArgumentLines('just words')).toBeNull();
    expect(asDecisionReply('edit', 'just words')).toBe('edit: just words');
  });

  it('what is told again: the schema’s problem, "could not be read", nothing for a missing reason; a refusal is not asked again', () => {
    const en = wordsFor('en');
    const invalid = (hint: string) => ({ kind: 'invalid' as const, askId: 'a', hint });
    const how = en.t('approval.editJson');
    expect(problemOf('edit', invalid(`does not match the schema: replicas must be <= 5. ${how}`))).toBe(
      'does not match the schema: replicas must be <= 5.',
    );
    expect(problemOf('edit', invalid(how))).toBe('That could not be read as JSON or as "key: value" lines.');
    expect(problemOf('reject', invalid(en.t('approval.needReason', { word: 'reject' })))).toBe('');
    expect(problemOf('reject', invalid(en.t('approval.ownRequest')))).toBeNull();
  });
});

import type { LocaleInfo, Message } from './types.js';

/**
 * English, the reference catalogue: every other locale has exactly its keys and placeholders
 * (test/unit/i18n-catalogues.test.ts). `{name}` is a placeholder; plural entries pick a form by
 * `{count}` through `Intl.PluralRules`. No key is one channel's: what only a channel says lives in
 * its folder (`channels/<name>/words.ts`); the web console's own words are in console/i18n.
 */
export const EN_MESSAGES = {
  // The prompt (core/prompt-view.ts).
  'prompt.buttons': 'Tap an option, or reply to this message with your own words. Send "skip" to skip.',
  'prompt.buttonsAgree': {
    one: 'Tap an option, or reply to this message with your own words. {count} matching answer is needed; you may change yours until then.',
    other:
      'Tap an option, or reply to this message with your own words. {count} matching answers are needed; you may change yours until then.',
  },
  'prompt.text': 'Reply with a number, an option name or your own words; send "skip" to skip.',
  'prompt.textAgree': {
    one: 'Reply with a number, an option name or your own words. {count} matching answer is needed; you may change yours until then.',
    other:
      'Reply with a number, an option name or your own words. {count} matching answers are needed; you may change yours until then.',
  },
  'prompt.pickSeveral': 'Pick several like "1,3".',
  'prompt.several': 'Answer each question on its own line, in order, or as "2: your answer".',
  'prompt.form': 'Tap Answer to choose, or reply to this message.',
  /** The words of the instructions above that a thread-based channel swaps for `phrase.replyInThread`. */
  'phrase.replyToMessage': 'reply to this message',
  'phrase.replyInThread': 'reply in this thread',
  'prompt.questionN': 'Question {n}',
  'prompt.ownWords': 'their own words',
  // Controls (button and form labels: test/unit/i18n-limits.test.ts checks them against the platforms' limits).
  'control.other': 'Other…',
  'control.skip': 'Skip',
  'control.open': 'Open',
  'control.answer': 'Answer',
  'control.submit': 'Submit',
  'control.back': 'Back',
  'control.next': 'Next',
  'control.progress': 'Question {n} of {total}',
  'control.ownWords': 'Your own words',
  'control.choose': 'Choose…',
  'control.formTitle': 'Your answer',
  // Follow-ups after a partial reply and counted answers.
  'partial.done': 'Got it.',
  'partial.one': 'Got it. Still open: {question} {how}',
  'partial.many': 'Got it. Still open:',
  'partial.how': 'Reply with one line per open question, or as "{first}: your answer".',
  'counted.notice': {
    one: 'Your answer is recorded: {count} of {needed} matching answers so far.',
    other: 'Your answer is recorded: {count} of {needed} matching answers so far.',
  },
  // Outcome lines (core/outcome-view.ts).
  'outcome.byApi': ' — via API',
  'outcome.byPage': ' — on the answer page',
  'outcome.by': ' — by {name}',
  'outcome.whereApi': 'via the API',
  'outcome.wherePage': 'on the answer page',
  'outcome.where': 'in {channel} by {name}',
  'outcome.answeredWhereValue': 'Answered {where}: {summary}',
  'outcome.answeredWhere': 'Answered {where}',
  'outcome.agreedBy': 'Agreed by {names}',
  'outcome.agreedTail': ' — agreed by {names}',
  'outcome.answeredValue': 'Answered: {summary}{tail}',
  'outcome.answered': 'Answered{tail}',
  'outcome.defaultTaken': 'No answer in time: the default was taken ({summary})',
  'outcome.defaultsTaken': 'No answer in time: the defaults were taken',
  'outcome.notEnough': 'Expired — not enough matching answers ({count} needed)',
  'outcome.expired': 'Expired — no answer',
  'outcome.skipped': 'Skipped',
  'outcome.skippedApi': 'Skipped via API',
  'outcome.skippedPage': 'Skipped on the answer page',
  'outcome.skippedWhere': 'Skipped {where}',
  'outcome.skippedBy': 'Skipped by {name}',
  'outcome.cancelled': 'Cancelled',
  'outcome.superseded': 'Replaced by a newer question',
  'outcome.undelivered': 'Not delivered',
  // Notices after a tap or a reply.
  'notice.gone': 'This question is no longer open',
  'notice.cancelled': 'This question was cancelled',
  'notice.notForYou': 'This question is not for you',
  'notice.forUsers': 'This question is for {names}{more}',
  'notice.answeredApi': 'This question was already answered via API',
  'notice.answeredPage': 'This question was already answered on the answer page',
  'notice.answeredBy': 'This question was already answered by {name}{place}',
  'notice.place': ' in {channel}',
  'notice.skipped': 'This question was already skipped',
  'notice.skippedApi': 'This question was already skipped via API',
  'notice.skippedPage': 'This question was already skipped on the answer page',
  'notice.skippedBy': 'This question was already skipped by {name}{place}',
  'notice.superseded': 'This question was replaced by a newer one',
  'notice.skipRecorded': 'Skip recorded',
  'notice.recordedSoFar': {
    one: 'Answer recorded: {count} of {needed} matching answers so far',
    other: 'Answer recorded: {count} of {needed} matching answers so far',
  },
  'notice.recorded': 'Answer recorded',
  'notice.expiredAt': 'This question expired at {time}',
  'notice.expired': 'This question expired',
  'notice.defaultsTaken': { one: '{base}; the default was taken', other: '{base}; the defaults were taken' },
  'notice.invalidButton': 'This button is not valid',
  'notice.ownWords': 'Reply to the question message with your answer in your own words.',
  'notice.ambiguous': 'Several questions are waiting here: reply to the question you are answering.',
  'notice.skipRefused': {
    one: 'This question needs {count} matching answer: tap an option.',
    other: 'This question needs {count} matching answers: tap an option.',
  },
  'notice.answerInvalid': 'This answer does not fit the question.',
  // Lists, tallies and reminders (core/policy-view.ts).
  'list.more': { one: ' and {count} more', other: ' and {count} more' },
  'list.separator': ', ',
  'list.and': ' and ',
  'channel.web': 'the console',
  'channel.api': 'the API',
  'tally.needed': { one: '{count} matching answer needed', other: '{count} matching answers needed' },
  'tally.none': 'No answers yet — {needed}',
  'tally.line': '{groups}{more} — {needed}',
  'tally.more': ' · {count} more',
  'tally.answered': 'Answered: {names}',
  // The deadline line under an open prompt (core/deadline-view.ts): {when} is a date, time and zone.
  'deadline.open': 'Open until {when}',
  'reminder.open': 'Reminder: this question is still open.',
  'reminder.soon': 'Reminder: this question is about to expire ({time}).',
  'reminder.expires': 'Reminder: this question is still open. It expires {when} ({left}).',
  'reminder.onDate': 'on {date} at {time}',
  'reminder.at': 'at {time}',
  'left.underMinute': 'in less than a minute',
  'left.minutes': { one: 'in {count} minute', other: 'in {count} minutes' },
  'left.hours': { one: 'in about {count} hour', other: 'in about {count} hours' },
  'left.days': { one: 'in about {count} day', other: 'in about {count} days' },
  // Forms (core/forms.ts).
  'form.nothing': 'Choose an option or write your own answer.',
  'form.both': 'Choose an option or write your own answer, not both.',
  'form.tooMany': 'Choose one option.',
  'form.unknown': 'This choice is not one of the options.',
  'form.tooLong': 'Keep your own answer under {max} characters.',
  'form.shape': 'This form does not match the question any more.',
  'form.problem': 'Question {n}: {message}',
  // Typed replies (core/reply-parser.ts, reply-lines.ts). `*Inline` forms follow "Question 2: ".
  'reply.keyedHint': 'Reply with one line per open question, or as "2: your answer".',
  'reply.noQuestion': {
    one: 'There is no question {key}; there is {count}. {hint}',
    other: 'There is no question {key}; there are {count}. {hint}',
  },
  'reply.twice': 'Question {n} is answered twice. {hint}',
  'reply.skipOne':
    'Question {n}: send "skip" on its own to skip the whole question; questions cannot be skipped one by one.',
  'reply.problem': 'Question {n}: {problem} {guidance}',
  'reply.noneOpen': 'no other question is open',
  'reply.someOpen': {
    one: 'only {count} question is open ({numbers})',
    other: 'only {count} questions are open ({numbers})',
  },
  'reply.answeredLines': { one: 'You answered {count} line', other: 'You answered {count} lines' },
  'reply.replyLines': {
    one: "Your reply has {count} line, counting blank ones that keep a question's place,",
    other: "Your reply has {count} lines, counting blank ones that keep a question's place,",
  },
  'reply.overflow': '{said} but {open}. {hint}',
  'reply.noOption': 'There is no option {option}.',
  'reply.noOptionInline': 'there is no option {option}.',
  'reply.pickOne': 'This question takes one answer, so pick just one option.',
  'reply.pickOneInline': 'this question takes one answer, so pick just one option.',
  'reply.guideMulti':
    'Reply with numbers from 1 to {count} like "1,3", option names, or your own words; send "skip" to skip.',
  'reply.guideOne': 'Reply with a number from 1 to {count}, an option name, or your own words; send "skip" to skip.',
  // What the channels write themselves (wired by each channel).
  // Forms (modals on Slack and Discord, drafts on Telegram) and what a channel says about them.
  'control.cancel': 'Cancel',
  'control.otherOwn': 'Other (in your own words)',
  'control.optional': 'Optional',
  'form.title': 'Answer the question',
  'form.titleMany': 'Answer the questions',
  'form.ownTitle': 'Your own answer',
  'form.hintSingle': 'Choose one, or write your own answer below.',
  'form.hintMulti': 'Choose any that apply; your own words below are added to them.',
  'form.ownSingle': 'Instead of an option',
  'form.ownMulti': 'Besides or instead of the options',
  'form.ownShared': 'For the question you left empty, or start a line with its number: "3: …"',
  'form.ownUnclear':
    'Start your own words with the question number, like "3: your answer", or leave that question empty.',
  'form.notValid': 'This form is not valid.',
  'form.tapAgain': 'Tap Answer to try again.',
  'form.tapOtherAgain': 'Tap Other… to try again.',
  'form.tooSlow': 'That took too long to open; please tap the button again.',
  'form.doesNotFit': 'Reply to the question message with your answer.',
  // A form session someone else holds (app/form-session.ts, core/drafts.ts `heldNotice`).
  'form.answering': '{name} is answering',
  // Typed answers (core/questions/: text, number, date, time, datetime, email, url).
  'prompt.typed': 'Type your answer and reply to this message; send "skip" to skip.',
  'prompt.typedAgree': {
    one: 'Type your answer and reply to this message. {count} matching answer is needed; you may change yours until then.',
    other:
      'Type your answer and reply to this message. {count} matching answers are needed; you may change yours until then.',
  },
  'typed.expect': 'Please answer with {what}, for example {example}.',
  'typed.expectRange': 'Please answer with {what} between {min} and {max}, for example {example}.',
  'typed.expectFrom': 'Please answer with {what} from {min} on, for example {example}.',
  'typed.expectUpTo': 'Please answer with {what} up to {max}, for example {example}.',
  'typed.ownWords': 'Please answer in your own words, at most {max} characters.',
  'typed.ownWordsRange': 'Please answer in your own words, {min} to {max} characters.',
  'typed.nothingDone': 'Nothing has been done yet.',
  'typed.what.text': 'text',
  'typed.what.number': 'a number',
  'typed.what.integer': 'a whole number',
  'typed.what.unit': '{what} in {unit}',
  'typed.what.date': 'a date',
  'typed.what.time': 'a time',
  'typed.what.datetime': 'a date and time',
  'typed.what.email': 'an email address',
  'typed.what.url': 'a link (http or https)',
  'typed.what.zoned': '{what} in {zone}',
  'prompt.formTyped': 'Tap Answer to type it in, or reply to this message.',
  'typed.form.date': 'YYYY-MM-DD',
  'typed.form.datetime': 'YYYY-MM-DD HH:MM',
  'typed.notRead': 'I could not read that answer.',
  'typed.outOfRange': 'That answer is outside the allowed range.',
  'typed.length': 'That answer is too short or too long.',
  'typed.pattern': 'That answer is not in the form this question asks for.',
  'typed.notWhole': 'That is not a whole number.',
  'typed.nonexistent': 'That time does not exist in {zone}: the clocks change then.',
  'typed.understood': '{value}, from “{raw}”',
  // Approvals (core/approval/).
  'approval.action': 'Action: {action}',
  'approval.preview': 'Preview:',
  'approval.hash': 'Hash #{hash}',
  'approval.viaApi': 'the API',
  'approval.viaPage': 'someone on the answer page',
  'approval.approved': 'Approved by {name} (#{hash})',
  'approval.edited': 'Approved with changes by {name} (#{hash})',
  'approval.rejected': 'Rejected by {name}',
  'approval.changes': 'Changes requested by {name}',
  'approval.prompt':
    'Tap a button, or reply to this message with "approve", "reject: <why>" or "request changes: <what>".',
  'approval.howToReply':
    'Reply with "approve", "reject: <why>" or "request changes: <what>"; send "skip" to skip. Nothing has been done yet.',
  'approval.editJson':
    'Send the edited arguments as JSON after "edit:", for example edit: {"to": "cfo@example.com"}. Nothing has been done yet.',
  'approval.replyReason': 'Reply to the message with "{word}:" and why.',
  'approval.replyEdit': 'Reply to the message with "{word}:" and the arguments as JSON.',
  'approval.word.approve': 'approve|approved',
  'approval.word.reject': 'reject|rejected|deny',
  'approval.word.request_changes': 'request changes|changes',
  'approval.word.edit': 'edit',
  'control.approve': 'Approve',
  'control.reject': 'Reject…',
  'control.requestChanges': 'Request changes…',
  'control.edit': 'Edit…',
  'approval.ownRequest': 'You requested this action: someone else must decide.',
  'approval.needReason': 'Say why: reply with "{word}:" and your reason.',
  'approval.timeoutApproved': 'Expired with no decision: approved, as the request stated for a timeout',
  'approval.timeoutRejected': 'Expired with no decision: rejected, as the request stated for a timeout',
} as const satisfies Record<string, Message>;

/** A key of the catalogues. */
export type MessageKey = keyof typeof EN_MESSAGES;

/** Every key with its message: what each locale file provides. */
export type Messages = { readonly [K in MessageKey]: Message };

/** English. */
export const en: LocaleInfo & { messages: Messages } = {
  tag: 'en',
  name: 'English',
  skipWords: ['skip'],
  messages: EN_MESSAGES,
};

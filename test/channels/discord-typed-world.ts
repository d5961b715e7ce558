// What the Discord typed-question tests share: one question of each typed kind, choices to mix
// them with, and the view askgate builds for Discord.
import { DISCORD_CAPABILITIES } from '../../src/channels/discord/capabilities.js';
import { buildPromptView, type PromptView } from '../../src/core/prompt-view.js';
import { wordsFor } from '../../src/core/i18n/index.js';
import type { Question } from '../../src/core/schemas.js';

/** The ask id of views built by {@link view}. */
export const ASK = 'TypedAsk00000001';

/** One question of each typed kind, with constraints. */
export const KIND_QUESTIONS = {
  text: { id: 'subject', kind: 'text', question: 'What should the subject line say?', minLength: 5, maxLength: 80 },
  number: { id: 'replicas', kind: 'number', question: 'How many replicas?', min: 1, max: 10, integer: true },
  date: {
    id: 'start',
    kind: 'date',
    header: 'Report',
    question: 'Which day should the report start?',
    min: '2026-12-01',
    max: '2026-12-31',
  },
  time: { id: 'at', kind: 'time', question: 'At what time?', min: '09:00', max: '17:00' },
  datetime: { id: 'when', kind: 'datetime', question: 'When exactly?', min: '2026-12-01T00:00:00+00:00' },
  email: { id: 'to', kind: 'email', question: 'Which address should receive it?' },
  url: { id: 'link', kind: 'url', question: 'Which page?' },
} as const satisfies Record<string, Question>;
/** The typed kinds, in the order of {@link KIND_QUESTIONS}. */
export const KINDS = Object.keys(KIND_QUESTIONS) as (keyof typeof KIND_QUESTIONS)[];

/** A single-choice question with a header. */
export const choice: Question = {
  id: 'env',
  header: 'Deploy',
  question: 'Where should I deploy?',
  multiSelect: false,
  options: [{ label: 'Staging' }, { label: 'Production' }],
};
/** A multi-select question. */
export const checks: Question = {
  id: 'checks',
  question: 'Which checks?',
  multiSelect: true,
  options: [{ label: 'lint' }, { label: 'tests' }],
};

/** The view askgate builds for Discord, in `locale` (default English), in the ask's zone. */
export const view = (questions: Question[], locale = 'en', timeZone = 'Europe/Lisbon'): PromptView =>
  buildPromptView({ id: ASK, version: 1, questions, timeZone }, wordsFor(locale, timeZone), DISCORD_CAPABILITIES);

// The questions of `askgate ask`, from its ordered flags: each `--question` starts one, and every
// question flag after it (options, header, kind, constraints) belongs to it. A typed question is
// `--question "How many replicas?" --kind number --min 1 --max 10 --integer`.
import { KIND_NAMES, type KindName } from './core/questions/index.js';
import { UsageError } from './cli-ask-policy.js';

/** Quotes a user-given value for an error message (cli-ask.ts passes its `shown`). */
type Show = (value: string) => string;

/** One parsed token of `parseArgs({tokens: true})` (only options are read). */
type Token = { kind: 'option'; name: string; value?: string } | { kind: 'positional' | 'option-terminator' };

/** The flags that belong to the latest `--question`, with how many times one question may give each. */
export const QUESTION_FLAGS = [
  'option',
  'header',
  'multi',
  'kind',
  'min',
  'max',
  'integer',
  'unit',
  'min-length',
  'max-length',
  'pattern',
] as const;
type QuestionFlag = (typeof QUESTION_FLAGS)[number];

/** The `parseArgs` options of the question flags. */
export const QUESTION_OPTIONS = {
  question: { type: 'string', multiple: true },
  option: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  multi: { type: 'boolean', multiple: true },
  kind: { type: 'string', multiple: true },
  min: { type: 'string', multiple: true },
  max: { type: 'string', multiple: true },
  integer: { type: 'boolean', multiple: true },
  unit: { type: 'string', multiple: true },
  'min-length': { type: 'string', multiple: true },
  'max-length': { type: 'string', multiple: true },
  pattern: { type: 'string', multiple: true },
} as const;

/** A question as the flags gave it: the text and each flag's values, in order. */
interface Draft {
  question: string;
  flags: Map<QuestionFlag, (string | undefined)[]>;
}

const NUMBER = /^-?\d{1,15}(\.\d{1,15})?$/;

/** The question flags of `tokens`, grouped by the `--question` each follows. */
export function questionsFromTokens(tokens: readonly Token[], show: Show): Record<string, unknown>[] {
  const drafts: Draft[] = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (token.name === 'question') drafts.push({ question: token.value!, flags: new Map() });
    else if ((QUESTION_FLAGS as readonly string[]).includes(token.name)) {
      const current = drafts.at(-1);
      if (!current) throw new UsageError(`--${token.name} must follow a --question`);
      const name = token.name as QuestionFlag;
      current.flags.set(name, [...(current.flags.get(name) ?? []), token.value]);
    }
  }
  return drafts.map((draft, i) => questionOf(draft, i + 1, show));
}

function questionOf(draft: Draft, n: number, show: Show): Record<string, unknown> {
  const once = (flag: QuestionFlag): string | undefined => {
    const given = draft.flags.get(flag) ?? [];
    if (given.length > 1) throw new UsageError(`--${flag} is given more than once for question ${n}`);
    return given[0];
  };
  const has = (flag: QuestionFlag) => draft.flags.has(flag);
  const kind = once('kind');
  if (kind !== undefined && !(KIND_NAMES as string[]).includes(kind))
    throw new UsageError(`--kind must be one of ${KIND_NAMES.join(', ')}, not ${show(kind)}`);
  const choice = kind === undefined || kind === 'choice';
  const question: Record<string, unknown> = { question: draft.question };
  const header = once('header');
  if (header !== undefined) question.header = header;
  if (kind !== undefined) question.kind = kind as KindName;
  // A choice always sends its options (askgate says when there are too few); other kinds only when
  // given, so askgate names them as not applying.
  if (choice || has('option')) question.options = (draft.flags.get('option') ?? []).map((label) => ({ label }));
  if (has('multi')) question.multiSelect = true;
  for (const flag of ['min', 'max'] as const) {
    const value = once(flag);
    if (value === undefined) continue;
    if (kind === 'number' && !NUMBER.test(value))
      throw new UsageError(`--${flag} of a number question must be a number like 10 or -2.5, not ${show(value)}`);
    question[flag] = kind === 'number' ? Number(value) : value;
  }
  if (has('integer')) question.integer = true;
  const unit = once('unit');
  if (unit !== undefined) question.unit = unit;
  for (const [flag, field] of [
    ['min-length', 'minLength'],
    ['max-length', 'maxLength'],
  ] as const) {
    const value = once(flag);
    if (value === undefined) continue;
    if (!/^\d{1,6}$/.test(value))
      throw new UsageError(`--${flag} must be a whole number of characters, not ${show(value)}`);
    question[field] = Number(value);
  }
  const pattern = once('pattern');
  if (pattern !== undefined) question.pattern = pattern;
  return question;
}

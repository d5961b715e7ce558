// A prompt's questions as the card's own inputs (the card is the form): a choice as an
// `Input.ChoiceSet` (radio buttons, or check boxes when several may be chosen) with a field for own
// words, a typed question as its native input. Teams' client checks (required, min/max, maxLength,
// regex) are only a first line: core reads every value again (core/forms.ts readForm).
import type {
  CardElementArray,
  IChoiceSetInput,
  IDateInput,
  INumberInput,
  ITextInput,
  ITimeInput,
} from '@microsoft/teams.cards';
import type { ChoiceQuestionView, TypedQuestionView } from '../../core/prompt-view.js';
import type { Words } from '../../core/i18n/index.js';
import { FORM_OWN_WORDS_MAX } from '../../core/forms.js';
import { TEXT_MAX_DEFAULT } from '../../core/questions/index.js';
import { ownInput, valueInput, type ShapeLetter } from './cards-data.js';
import { plain, textBlock } from './cards-text.js';
import { INPUT_LABEL_MAX } from './label-limits.js';

/** Longest text answer shown in a single-line field; longer ones get a multi-line one. */
const SINGLE_LINE_MAX = 150;
/** Longest placeholder or error message written on an input. */
const HINT_MAX = 300;
/** Longest choice title (an option's label and description on one line). */
const CHOICE_TITLE_MAX = 200;
/** Longest value of the text fields of kinds without their own length (email, url, datetime). */
const FIELD_MAX: Readonly<Record<'email' | 'url' | 'datetime', number>> = { email: 320, url: 2048, datetime: 100 };

/** A typed input element of the card. */
export type TypedInput = ITextInput | INumberInput | IDateInput | ITimeInput;

/** How question `q`'s inputs read back (cards-data.ts). */
export function shapeLetter(q: ChoiceQuestionView | TypedQuestionView): ShapeLetter {
  switch (q.kind) {
    case undefined:
    case 'choice':
      return (q as ChoiceQuestionView).multiSelect ? 'm' : 'c';
    case 'number':
      return 'n';
    case 'date':
      return 'd';
    case 'time':
      return 't';
    default:
      return 'x';
  }
}

/**
 * A text question's pattern as the card's `regex`, or null. The pattern is RE2 (core matches the
 * whole answer with it); Teams checks `regex` with each client's own engine (JavaScript, iOS,
 * Android), so only patterns written in the subset they all read alike are passed on (literal
 * characters, classes, groups without `(?`, quantifiers, `\d \w \s` and escaped punctuation),
 * anchored as core reads them. Anything else is checked by core alone.
 */
export function portableRegex(pattern: string | undefined): string | null {
  if (pattern === undefined || pattern.length > 200) return null;
  if (!/^(?:[^\\(]|\\[dDwWsS.\-\\/[\](){}*+?^$|]|\((?!\?))*$/.test(pattern)) return null;
  const anchored = `^(?:${pattern})$`;
  try {
    new RegExp(anchored);
    new RegExp(anchored, 'u');
  } catch {
    return null;
  }
  return anchored;
}

const hint = (text: string | undefined) => (text ? plain(text, HINT_MAX) : undefined);

/** The native input of typed question `q` (required: a form answers every question). */
export function typedInput(q: TypedQuestionView): TypedInput {
  const id = valueInput(q.number);
  const errorMessage = hint(q.expected);
  const common = { id, isRequired: true, ...(errorMessage ? { errorMessage } : {}) };
  const placeholder = (text: string | undefined) => (text ? { placeholder: plain(text, HINT_MAX) } : {});
  switch (q.kind) {
    case 'number': {
      const min = q.min === undefined ? undefined : q.integer ? Math.ceil(q.min) : q.min;
      const max = q.max === undefined ? undefined : q.integer ? Math.floor(q.max) : q.max;
      return {
        type: 'Input.Number',
        ...common,
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
        // The field takes the number alone: its placeholder is the unit, the hint above has the example.
        ...placeholder(q.unit ?? q.example),
      };
    }
    case 'date':
      return {
        type: 'Input.Date',
        ...common,
        ...(q.min !== undefined ? { min: q.min } : {}),
        ...(q.max !== undefined ? { max: q.max } : {}),
      };
    case 'time':
      return {
        type: 'Input.Time',
        ...common,
        ...(q.min !== undefined ? { min: q.min } : {}),
        ...(q.max !== undefined ? { max: q.max } : {}),
      };
    case 'text': {
      const maxLength = q.maxLength ?? TEXT_MAX_DEFAULT;
      const regex = portableRegex(q.pattern);
      return {
        type: 'Input.Text',
        ...common,
        maxLength,
        isMultiline: maxLength > SINGLE_LINE_MAX,
        ...(regex ? { regex } : {}),
      };
    }
    case 'email':
      return { type: 'Input.Text', ...common, style: 'Email', maxLength: FIELD_MAX.email, ...placeholder(q.example) };
    case 'url':
      return { type: 'Input.Text', ...common, style: 'Url', maxLength: FIELD_MAX.url, ...placeholder(q.example) };
    default:
      // datetime: a date and a time typed as people write them, read like a reply (in the ask's zone).
      return { type: 'Input.Text', ...common, maxLength: FIELD_MAX.datetime, ...placeholder(q.example) };
  }
}

/** The choice set of choice question `q` (values: the 1-based option numbers) and its own-words field. */
export function choiceInputs(q: ChoiceQuestionView, words: Words): [IChoiceSetInput, ITextInput] {
  const choices = q.options.map((o) => ({
    title: plain(o.description ? `${o.label} — ${o.description}` : o.label, CHOICE_TITLE_MAX),
    value: String(o.number),
  }));
  return [
    {
      type: 'Input.ChoiceSet',
      id: valueInput(q.number),
      style: 'expanded',
      isMultiSelect: q.multiSelect,
      wrap: true,
      choices,
    },
    {
      type: 'Input.Text',
      id: ownInput(q.number),
      label: plain(words.t('control.otherOwn'), INPUT_LABEL_MAX),
      placeholder: plain(words.t('control.ownWords'), HINT_MAX),
      maxLength: FORM_OWN_WORDS_MAX,
    },
  ];
}

/** The inputs of one question of a form card: a choice's set and own words, or a typed question's hint and input. */
export function questionInputs(q: ChoiceQuestionView | TypedQuestionView, words: Words): CardElementArray {
  if (q.kind === undefined || q.kind === 'choice') return choiceInputs(q as ChoiceQuestionView, words);
  const typed = q as TypedQuestionView;
  return [textBlock(typed.expected, { isSubtle: true, size: 'Small' }), typedInput(typed)];
}

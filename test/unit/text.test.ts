import { describe, expect, it } from 'vitest';
import { AnswerRequestSchema, AskRequestSchema, labelKey } from '../../src/core/schemas.js';
import { compareKey, stripInvisible, textProblem } from '../../src/core/text.js';
import { matchKey } from '../../src/core/reply-lines.js';
import { responderName } from '../../src/core/display-text.js';

type Body = Record<string, any>;

function ask(change: (b: Body) => void = () => {}): Body {
  const b: Body = {
    runId: 'run-1',
    to: { channel: 'telegram', chat: '42', users: ['1001'] },
    questions: [
      {
        header: 'Env',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging', description: 'Safe' }, { label: 'Prod' }],
      },
    ],
  };
  change(b);
  return b;
}

function issues(
  input: unknown,
  schema: { safeParse: (v: unknown) => any } = AskRequestSchema,
): { path: string; message: string }[] {
  const parsed = schema.safeParse(input);
  if (parsed.success) return [];
  return parsed.error.issues.map((i: { path: PropertyKey[]; message: string }) => ({
    path: i.path.join('.'),
    message: i.message,
  }));
}

// Fields that hold one line of text, and the multi-line ones.
const SINGLE: [string, (b: Body, v: string) => void][] = [
  ['questions.0.options.1.label', (b, v) => (b.questions[0].options[1].label = v)],
  ['questions.0.header', (b, v) => (b.questions[0].header = v)],
];
const MULTI: [string, (b: Body, v: string) => void][] = [
  ['questions.0.question', (b, v) => (b.questions[0].question = v)],
  ['questions.0.options.0.description', (b, v) => (b.questions[0].options[0].description = v)],
];

const REFUSED: [string, string, RegExp][] = [
  ['NUL', 'a\u0000b', /control character \(U\+0000\)/],
  ['a C0 control (ESC)', 'a\u001b[31mred', /control character \(U\+001B\)/],
  ['DEL', 'a\u007f', /control character \(U\+007F\)/],
  ['a C1 control (CSI)', 'a\u009bb', /control character \(U\+009B\)/],
  ['a zero-width space', 'Ye\u200bs', /invisible character \(U\+200B\)/],
  ['a zero-width joiner between Latin letters', 'Ye\u200ds', /invisible character \(U\+200D\)/],
  ['a zero-width non-joiner between Latin letters', 'Ye\u200cs', /invisible character \(U\+200C\)/],
  ['a word joiner', 'Ye\u2060s', /invisible character \(U\+2060\)/],
  ['a soft hyphen', 'Ye\u00ads', /invisible character \(U\+00AD\)/],
  ['a BOM', '\ufeffYes', /invisible character \(U\+FEFF\)/],
  ['a right-to-left override', 'txt.\u202eexe', /invisible character \(U\+202E\)/],
  ['a left-to-right embedding', '\u202aYes', /invisible character \(U\+202A\)/],
  ['a right-to-left isolate', 'a\u2067b\u2069', /invisible character \(U\+2067\)/],
  ['a right-to-left mark', 'a\u200fb', /invisible character \(U\+200F\)/],
  ['an Arabic letter mark', 'a\u061cb', /invisible character \(U\+061C\)/],
  ['a Hangul filler', 'Yes\u3164', /invisible character \(U\+3164\)/],
  ['a lone tag character', 'Yes\u{e0041}', /invisible character \(U\+E0041\)/],
  ['a variation selector with nothing before it', ' \ufe0fYes', /invisible character \(U\+FE0F\)/],
  ['a ZWJ dangling after an emoji', '🙂\u200d', /invisible character \(U\+200D\)/],
  ['a lone high surrogate', 'a\ud800b', /lone surrogate \(U\+D800\)/],
  ['a lone low surrogate', 'a\udc00', /lone surrogate \(U\+DC00\)/],
  ['a noncharacter', 'a\uffffb', /noncharacter \(U\+FFFF\)/],
];

describe('text rules: refused in every field people read, with the field path and the character', () => {
  for (const [path, set] of [...SINGLE, ...MULTI]) {
    it.each(REFUSED)(`${path}: %s`, (_name, value, message) => {
      const found = issues(ask((b) => set(b, value)));
      expect(found.filter((i) => i.path === path).map((i) => i.message)).toEqual([expect.stringMatching(message)]);
    });
  }

  it.each(REFUSED)('answers values and `by`: %s', (_name, value, message) => {
    expect(issues({ answers: { q1: [value] } }, AnswerRequestSchema)).toEqual([
      { path: 'answers.q1.0', message: expect.stringMatching(message) },
    ]);
    expect(issues({ skip: true, by: value }, AnswerRequestSchema)).toEqual([
      { path: 'by', message: expect.stringMatching(message) },
    ]);
  });

  it.each(SINGLE)('%s: a tab or any line break means more than one line', (path, set) => {
    for (const value of ['a\nb', 'a\r\nb', 'a\rb', 'a\u2028b', 'a\u2029b', 'a\u0085b']) {
      expect(issues(ask((b) => set(b, value))).find((i) => i.path === path)?.message).toBe('must be a single line');
    }
    expect(issues(ask((b) => set(b, 'a\tb'))).find((i) => i.path === path)?.message).toMatch(
      /control character \(U\+0009\)/,
    );
  });

  it.each([...SINGLE, ...MULTI.slice(0, 1)])('%s: all-invisible or mark-only text is refused', (path, set) => {
    for (const value of ['\u200b\u200b', '\u2800', '\u0301\u0302', '\ufe0f']) {
      expect(issues(ask((b) => set(b, value))).filter((i) => i.path === path).length).toBe(1);
    }
  });

  it.each([
    ['platform ids: a space', 'chat', 'a b'],
    ['platform ids: non-ASCII', 'chat', 'сhat'],
    ['platform ids: a zero-width space', 'thread', '1\u200b2'],
    ['platform ids: NUL', 'chat', '4\u00002'],
  ])('%s', (_name, field, value) => {
    expect(issues(ask((b) => (b.to[field] = value)))).toEqual([
      { path: `to.${field}`, message: 'must be a platform id: printable ASCII without spaces' },
    ]);
    expect(issues(ask((b) => (b.to.users = ['1001', value])))).toEqual([
      { path: 'to.users.1', message: 'must be a platform id: printable ASCII without spaces' },
    ]);
  });
});

describe('text rules: allowed', () => {
  it.each<[string, string]>([
    ['an emoji ZWJ sequence', '👨‍👩‍👧 family'],
    ['an emoji with VS16', '❤️ love'],
    ['a keycap', '1️⃣ first'],
    ['a skin tone and ZWJ', '👩🏽‍💻 dev'],
    ['a tag-sequence flag', '🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland'],
    ['a country flag', '🇫🇷 France'],
    ['Persian with ZWNJ', 'می‌خواهم'],
    ['Hindi with ZWJ', 'क्‍ष'],
    ['accents, CJK, RTL letters', 'Café 東京 שלום مرحبا'],
    ['a CJK ideographic variation selector', '葛\u{e0100}飾'],
  ])('%s', (_name, value) => {
    for (const [, set] of [...SINGLE, ...MULTI]) expect(issues(ask((b) => set(b, value)))).toEqual([]);
    expect(issues({ answers: { q1: [value] }, by: value }, AnswerRequestSchema)).toEqual([]);
  });

  it('multi-line fields keep \\n and \\t and store every other line break as \\n', () => {
    const parsed = AskRequestSchema.parse(
      ask((b) => (b.questions[0].question = 'one\r\ntwo\rthree\u2028four\u0085five\n\tsix')),
    );
    expect(parsed.questions[0]!.question).toBe('one\ntwo\nthree\nfour\nfive\n\tsix');
    expect(AnswerRequestSchema.parse({ answers: { q1: ['a\r\nb'] } })).toEqual({ answers: { q1: ['a\nb'] } });
  });

  it('stores NFC: a decomposed é becomes one code point everywhere', () => {
    const decomposed = 'Cafe\u0301';
    const parsed = AskRequestSchema.parse(
      ask((b) => {
        b.questions[0].options[0].label = decomposed;
        b.questions[0].header = decomposed;
        b.questions[0].question = decomposed;
      }),
    );
    const q = parsed.questions[0] as { options: { label: string }[]; header?: string; question: string };
    expect([q.options[0]!.label, q.header, q.question]).toEqual(['Café', 'Café', 'Café']);
    expect(AnswerRequestSchema.parse({ answers: { q1: [decomposed] }, by: decomposed })).toEqual({
      answers: { q1: ['Café'] },
      by: 'Café',
    });
  });
});

describe('labels compare after NFKC and case folding', () => {
  const labels = (...ls: string[]) => ask((b) => (b.questions[0].options = ls.map((label) => ({ label }))));

  it.each<[string, string]>([
    ['full-width Ｏｔｈｅｒ', 'Ｏｔｈｅｒ'],
    ['full-width ＳＫＩＰ', 'ＳＫＩＰ'],
    ['OTHER', 'OTHER'],
    ['Other (Recommended)', 'Other (Recommended)'],
    ['Skip …', 'Skip …'],
  ])('the reserved word as %s is refused', (_name, label) => {
    expect(issues(labels('Yes', label))).toEqual([
      { path: 'questions.0.options.1.label', message: expect.stringMatching(/reserved/) },
    ]);
  });

  it.each<[string, string, string]>([
    ['case', 'Yes', 'YES'],
    ['width', 'Yes', 'Ｙｅｓ'],
    ['ß and ss', 'Straße', 'STRASSE'],
    ['a variation selector', '❤', '❤️'],
    ['composed and decomposed', 'Café', 'Cafe\u0301'],
    ['inner white space', 'Deploy now', 'Deploy   now'],
  ])('duplicates ignoring %s are refused', (_name, a, b) => {
    expect(issues(labels(a, b))).toEqual([
      { path: 'questions.0.options.1.label', message: expect.stringMatching(/duplicates option 1/) },
    ]);
  });

  it('"Yes" next to "Ye\\u200bs" is refused for the zero-width space', () => {
    expect(issues(labels('Yes', 'Ye\u200bs')).map((i) => i.message)).toContainEqual(
      expect.stringMatching(/invisible character \(U\+200B\)/),
    );
  });

  it("labelKey and the reply parser's matchKey are the same normalisation", () => {
    for (const s of [
      'Ｓｔａｇｉｎｇ (Recommended)',
      'Straße',
      'Ye\u200bs',
      '  a \u00a0 b  ',
      '❤️',
      'Cafe\u0301',
      'ﬁle',
    ]) {
      expect(matchKey(s)).toBe(labelKey(s));
    }
    expect(labelKey('Ｓｔａｇｉｎｇ (Recommended)')).toBe('staging');
    expect(compareKey('Straße')).toBe(compareKey('STRASSE'));
  });
});

describe('textProblem and stripInvisible', () => {
  it('reports the first offending character only', () => {
    expect(textProblem('a\u200b\u0000', false)).toMatch(/U\+200B/);
    expect(textProblem('fine 👍', false)).toBeNull();
  });

  it('strips bidi overrides and controls from platform names shown in summaries, keeping emoji', () => {
    expect(stripInvisible('\u202eecila\u0000 👨‍👩‍👧')).toBe('ecila 👨‍👩‍👧');
    expect(responderName({ channel: 'telegram', userId: '1', username: '\u202eadmin' })).toBe('@admin');
    expect(responderName({ channel: 'telegram', userId: '1', name: '\u200b' })).toBe('1');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testEnv } from '../helpers/app.js';
import {
  AskgateApiError,
  AskgateClient,
  type AnswerValues,
  type AskResult,
  type AskView,
  type DateQuestionInput,
  type EmailQuestionInput,
  type NumberQuestionInput,
  type QuestionInput,
  type TextQuestionInput,
} from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';

// The SDK with typed questions (issue 35): the exported input types, `answer(id, {values})` with
// JSON values, and the result's `values` (JSON types) and `raw`, against a real askgate (memory).

let app: RunningAskgate;
let sdk: AskgateClient;
let run = 0;

beforeAll(async () => {
  app = await startTestApp(testEnv({}));
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await app?.close();
});

const replicas: NumberQuestionInput = {
  id: 'replicas',
  question: 'How many replicas?',
  kind: 'number',
  min: 1,
  max: 10,
  integer: true,
};
const day: DateQuestionInput = { id: 'day', question: 'Which day?', kind: 'date', min: '2026-12-01' };
const subject: TextQuestionInput = { id: 'subject', question: 'Subject line?', kind: 'text', maxLength: 80 };
const mail: EmailQuestionInput = { id: 'mail', question: 'Send it to?', kind: 'email' };

/** Asks `questions` and hands back the created ask and the pending result. */
async function asked(questions: QuestionInput[]): Promise<{ ask: AskView; result: Promise<AskResult> }> {
  let created!: (a: AskView) => void;
  const ask = new Promise<AskView>((r) => (created = r));
  const result = sdk.ask({ runId: `sdk-typed-${++run}`, questions }, { onCreated: created, waitSeconds: 1 });
  return { ask: await ask, result };
}

describe('AskgateClient with typed questions', () => {
  it('answer(id, {values}) with JSON values; the result has values with JSON types beside answers', async () => {
    const { ask, result } = await asked([replicas, day, subject]);
    expect(ask.questions).toEqual([replicas, day, subject]);
    const values: AnswerValues = { replicas: 3, day: '2026-12-08', subject: 'Release 2.3' };
    const view = await sdk.answer(ask.id, { values, by: 'ops' });
    expect(view.status).toBe('answered');
    const answered = await result;
    expect(answered).toMatchObject({
      status: 'answered',
      answers: { replicas: ['3'], day: ['2026-12-08'], subject: ['Release 2.3'] },
      values: { replicas: 3, day: '2026-12-08', subject: 'Release 2.3' },
      answeredBy: { channel: 'api', userId: 'ops' },
    });
  });

  it('raw keeps what was given where it differs from the normalized value', async () => {
    const { ask, result } = await asked([mail]);
    await sdk.answer(ask.id, { values: { mail: 'Ops@Example.COM' } });
    expect(await result).toMatchObject({ values: { mail: 'Ops@example.com' }, raw: { mail: 'Ops@Example.COM' } });
  });

  it('answers as strings still work for typed questions; a choice in values takes its labels', async () => {
    const env: QuestionInput = {
      id: 'env',
      question: 'Where?',
      options: [{ label: 'Staging' }, { label: 'Production' }],
    };
    const { ask, result } = await asked([replicas, env]);
    await sdk.answer(ask.id, { answers: { replicas: ['7'] }, values: { env: ['production'] } });
    expect(await result).toMatchObject({
      answers: { replicas: ['7'], env: ['Production'] },
      values: { replicas: 7, env: ['Production'] },
    });
  });

  it('a value that does not fit is an AskgateApiError 400 naming the question, and the ask stays pending', async () => {
    const { ask, result } = await asked([replicas]);
    const refused = await sdk.answer(ask.id, { values: { replicas: 2.5 } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AskgateApiError);
    expect(refused).toMatchObject({ status: 400 });
    expect(JSON.stringify((refused as AskgateApiError).issues)).toContain('replicas');
    expect((await sdk.get(ask.id)).status).toBe('pending');
    await sdk.answer(ask.id, { values: { replicas: 2 } });
    expect(await result).toMatchObject({ values: { replicas: 2 } });
  });

  it('a typed question with another kind’s field is refused before anything is asked, naming the field', async () => {
    const bad = { id: 'n', question: 'N?', kind: 'number', options: [{ label: 'A' }, { label: 'B' }] };
    const refused = await sdk.create({ runId: 'sdk-typed-bad', questions: [bad as QuestionInput] }).catch((e) => e);
    expect(refused).toMatchObject({ status: 400 });
    expect((refused as AskgateApiError).issues).toContainEqual({
      path: ['questions', 0, 'options'],
      message: 'does not apply to a number question',
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotation, END, MemorySaver, START, StateGraph, interrupt } from '@langchain/langgraph';
import { startTestApp, testEnv } from '../helpers/app.js';
import { RecordingChannel } from '../helpers/test-channel.js';
import { AskgateClient, type AskResult } from '../../src/client/index.js';
import { askPerson, isAskPayload, runWithAskgate } from '../../src/adapters/langgraph.js';
import type { RunningAskgate } from '../../src/main.js';
import { Person, closeApp } from './adapters-person.js';
import { choiceView } from '../../src/core/prompt-view.js';

// The real LangGraph (StateGraph, interrupt(), Command({resume}), MemorySaver): no model needed.
// A real askgate, answered through the test channel.

let app: RunningAskgate;
let sdk: AskgateClient;
const channel = new RecordingChannel('test');
let n = 0;

beforeAll(async () => {
  app = await startTestApp(testEnv(), [channel]);
  sdk = new AskgateClient({ url: app.url });
});

afterAll(async () => {
  await closeApp(app);
});

const Release = Annotation.Root({
  version: Annotation<string>(),
  target: Annotation<string>(),
  checks: Annotation<string[]>(),
  log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
});

/** Pick a target, then the checks; no answer falls back to the safe choice. `runs` counts node starts. */
function releaseGraph(runs = { target: 0 }, checksTimeoutSeconds?: number) {
  const graph = new StateGraph(Release)
    .addNode('choose_target', (state) => {
      runs.target++;
      const answer = askPerson([
        {
          id: 'target',
          header: 'Deploy',
          question: `Where should ${state.version} go first?`,
          options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
        },
      ]);
      const target = answer.status === 'answered' ? answer.answers.target![0]! : 'Staging (Recommended)';
      return { target, log: [`target: ${target}${answer.status === 'no_answer' ? ` (${answer.reason})` : ''}`] };
    })
    .addNode('choose_checks', (state) => {
      const answer = askPerson(
        [
          {
            id: 'checks',
            header: 'Checks',
            question: `Which checks before ${state.target}?`,
            multiSelect: true,
            options: [{ label: 'smoke' }, { label: 'load' }, { label: 'security' }],
          },
        ],
        checksTimeoutSeconds ? { timeoutSeconds: checksTimeoutSeconds } : {},
      );
      const checks = answer.status === 'answered' ? answer.answers.checks! : ['smoke'];
      return {
        checks,
        log: [`checks: ${checks.join(', ')}${answer.status === 'no_answer' ? ` (${answer.reason})` : ''}`],
      };
    })
    .addEdge(START, 'choose_target')
    .addEdge('choose_target', 'choose_checks')
    .addEdge('choose_checks', END);
  return graph.compile({ checkpointer: new MemorySaver() });
}

function setup() {
  const chat = `lg-${++n}`;
  return {
    person: new Person(channel, sdk, chat),
    opts: { threadId: `lg-thread-${n}`, to: { channel: 'test', chat } },
  };
}

describe('runWithAskgate over a real LangGraph graph', () => {
  it('asks at each interrupt and resumes the thread with the answer; the node re-runs from its start', async () => {
    const { person, opts } = setup();
    const runs = { target: 0 };
    const [final, target, checks] = await Promise.all([
      runWithAskgate(sdk, releaseGraph(runs), { version: 'v9' }, opts),
      person.tap('Production'),
      person.reply('1, 3'),
    ]);
    expect(final).toMatchObject({ target: 'Production', checks: ['smoke', 'security'] });
    expect(final.log).toEqual(['target: Production', 'checks: smoke, security']);
    expect(target.view.questions[0]!.question).toBe('Where should v9 go first?');
    expect(choiceView(checks.view.questions[0]!)!.multiSelect).toBe(true);
    expect(runs.target).toBe(2); // interrupted once, re-run on resume
    expect((await sdk.run(opts.threadId)).history).toHaveLength(2);
  });

  it('a free-text answer, a skip and a timeout reach the node as the AskResult', async () => {
    const { person, opts } = setup();
    const [final] = await Promise.all([
      runWithAskgate(sdk, releaseGraph(undefined, 1), { version: 'v9' }, opts),
      person.reply('canary in eu-west first'),
      person.nextAsk(), // the checks question times out after 1 s
    ]);
    expect(final.log).toEqual(['target: canary in eu-west first', 'checks: smoke (timeout)']);

    const second = setup();
    const [skipped] = await Promise.all([
      runWithAskgate(sdk, releaseGraph(), { version: 'v9' }, second.opts),
      second.person.skip(),
      second.person.reply('load'),
    ]);
    expect(skipped.log).toEqual(['target: Staging (Recommended) (skipped)', 'checks: load']);
  });

  it('a crashed runner continues the paused thread with input null and gets the same ask back', async () => {
    const { person, opts } = setup();
    const graph = releaseGraph();
    const controller = new AbortController();
    // The first runner dies (aborts) while the person is still reading: the ask is cancelled.
    const dying = runWithAskgate(sdk, graph, { version: 'v9' }, { ...opts, signal: controller.signal });
    await person.nextAsk();
    controller.abort();
    await expect(dying).rejects.toMatchObject({ name: 'AbortError' });
    const cancelled = (await sdk.run(opts.threadId)).history[0]!;
    expect(cancelled.result).toMatchObject({ status: 'no_answer', reason: 'cancelled' });

    // The thread is still paused at the same interrupt; a new runner continues it and finds the
    // same (cancelled) ask by its idempotency key: the node reads the cancellation, no second ask.
    const [final] = await Promise.all([runWithAskgate(sdk, graph, null, opts), person.reply('smoke')]);
    expect(final.log).toEqual(['target: Staging (Recommended) (cancelled)', 'checks: smoke']);
    const history = (await sdk.run(opts.threadId)).history;
    expect(history).toHaveLength(2);
    expect(history.map((a) => a.questions[0]!.id).sort()).toEqual(['checks', 'target']);
  });

  it('parallel nodes interrupting together are asked one after the other and resumed by interrupt id', async () => {
    const { person, opts } = setup();
    const State = Annotation.Root({ a: Annotation<string>(), b: Annotation<string>() });
    const ask = (id: string) => (): { a: string } | { b: string } => {
      const r: AskResult = askPerson([{ id, question: `${id}?`, options: [{ label: 'yes' }, { label: 'no' }] }]);
      return { [id]: r.status === 'answered' ? r.answers[id]![0]! : r.reason } as { a: string };
    };
    const graph = new StateGraph(State)
      .addNode('na', ask('a'))
      .addNode('nb', ask('b'))
      .addEdge(START, 'na')
      .addEdge(START, 'nb')
      .addEdge('na', END)
      .addEdge('nb', END)
      .compile({ checkpointer: new MemorySaver() });
    const [final, first, second] = await Promise.all([
      runWithAskgate(sdk, graph, {}, opts),
      person.tap('yes'),
      person.tap('no'),
    ]);
    const answers = { [first.view.questions[0]!.id]: 'yes', [second.view.questions[0]!.id]: 'no' };
    expect(final).toMatchObject(answers);
    expect((await sdk.run(opts.threadId)).history.map((a) => a.result?.status)).toEqual(['answered', 'answered']);
  });

  it('an interrupt that is not an askgate question is returned to the caller, unasked', async () => {
    const { opts } = setup();
    const State = Annotation.Root({ a: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode('n', () => ({ a: interrupt<{ kind: string }, string>({ kind: 'custom' }) }))
      .addEdge(START, 'n')
      .addEdge('n', END)
      .compile({ checkpointer: new MemorySaver() });
    const out = await runWithAskgate(sdk, graph, {}, opts);
    expect(out.__interrupt__).toEqual([expect.objectContaining({ value: { kind: 'custom' } })]);
    expect((await sdk.run(opts.threadId).catch(() => ({ history: [] }))).history).toEqual([]);
  });

  it('a typed question: the node gets values with JSON types, after a reply that did not fit', async () => {
    const { person, opts } = setup();
    const Scale = Annotation.Root({ replicas: Annotation<number>(), when: Annotation<string>() });
    const graph = new StateGraph(Scale)
      .addNode('size', () => {
        const answer = askPerson([
          { id: 'replicas', question: 'How many replicas?', kind: 'number', min: 1, max: 10, integer: true },
          { id: 'when', question: 'At what time?', kind: 'time' },
        ]);
        if (answer.status !== 'answered') return { replicas: 1, when: 'now' };
        return { replicas: answer.values!.replicas as number, when: answer.values!.when as string };
      })
      .addEdge(START, 'size')
      .addEdge('size', END)
      .compile({ checkpointer: new MemorySaver() });
    const running = runWithAskgate(sdk, graph, {}, opts);
    const asked = await person.nextAsk();
    expect(asked.view.questions.map((q) => q.question)).toEqual(['How many replicas?', 'At what time?']);
    // 12 is out of range: the question stays open (the person is told what fits).
    const ask = await sdk.get(asked.askId);
    const messageId = ask.deliveries[0]!.message!.messageId;
    const reply = (text: string) =>
      channel.sink!.text({
        channel: 'test',
        chat: person.chat,
        replyTo: messageId,
        privateChat: false,
        user: person.user,
        text,
      });
    expect((await reply('12\n14:30')).kind).not.toBe('recorded');
    expect((await reply('3\n2:30 pm')).kind).toBe('recorded');
    expect(await running).toEqual({ replicas: 3, when: '14:30' });
  });

  it('invalid questions from a node fail the run with askgate’s validation error', async () => {
    const { opts } = setup();
    const State = Annotation.Root({ a: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode('n', () => {
        askPerson([{ question: 'One option only?', options: [{ label: 'ok' }] }]);
        return {};
      })
      .addEdge(START, 'n')
      .addEdge('n', END)
      .compile({ checkpointer: new MemorySaver() });
    await expect(runWithAskgate(sdk, graph, {}, opts)).rejects.toMatchObject({ status: 400 });
  });

  it('isAskPayload tells askgate interrupts from others', () => {
    expect(isAskPayload({ questions: [{ question: 'Go?', options: [] }] })).toBe(true);
    expect(isAskPayload({ questions: [] })).toBe(false);
    expect(isAskPayload({ questions: 'x' })).toBe(false);
    expect(isAskPayload({ questions: [{ question: 'Go?' }] })).toBe(false);
    expect(isAskPayload({ questions: [{ question: 'How many?', kind: 'number' }] })).toBe(true);
    expect(isAskPayload({ questions: [{ question: 'How many?', kind: 3 }] })).toBe(false);
    expect(isAskPayload({ questions: [null] })).toBe(false);
    expect(isAskPayload(null)).toBe(false);
    expect(isAskPayload('askgate')).toBe(false);
  });
});

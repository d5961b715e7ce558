/**
 * A LangGraph-style interrupt/resume loop where every interrupt is a question to a person,
 * answered through askgate.
 *
 * Run the demo against a local askgate (`npm start` in another terminal):
 *   npx tsx examples/langgraph-interrupt-resume.ts
 *
 * The loop is what you write around a real LangGraph graph (`npm i @langchain/langgraph`):
 *
 *   import { Command, interrupt } from '@langchain/langgraph';
 *   // in a node:  const answer = interrupt({ questions: [...] });   // an AskResult on resume
 *   const config = { configurable: { thread_id: threadId } };
 *   let out = await graph.invoke(input, config);
 *   for (let n = 0; out.__interrupt__?.length; n++) {
 *     const { value } = out.__interrupt__[0];
 *     const answer = await client.ask({ runId: threadId, to, questions: value.questions },
 *                                     { idempotencyKey: `${threadId}-${n}` });
 *     out = await graph.invoke(new Command({ resume: answer }), config);
 *   }
 *
 * On resume LangGraph re-runs the interrupted node from its start, so anything before
 * `interrupt()` must be idempotent; the idempotency key makes the ask itself idempotent too: a
 * runner that crashes and resumes the thread gets the same ask (and its answer), not a second one.
 */
import { pathToFileURL } from 'node:url';
// In your project: import { AskgateClient, type AskInput, type AskResult, type AskView, type Target } from 'askgate/client';
import { AskgateClient, type AskInput, type AskResult, type AskView, type Target } from '../src/client/index.js';

/** What a node passes to `interrupt()`: the questions to ask. */
export type Questions = AskInput['questions'];

/** A node: reads the state and returns changes; `interrupt()` pauses it until the person answers. */
export type GraphNode<S> = (
  state: S,
  interrupt: (questions: Questions) => AskResult,
) => Partial<S> | Promise<Partial<S>>;

/** Thrown by `interrupt()` to pause a node (as LangGraph's GraphInterrupt does). */
class Interrupt extends Error {
  constructor(readonly questions: Questions) {
    super('interrupt');
  }
}

/** Options of {@link runWithAskgate}. */
export interface RunOptions {
  client: AskgateClient;
  /** The thread (LangGraph `thread_id`): the askgate runId, and the root of the idempotency keys. */
  threadId: string;
  to?: Target;
  timeoutSeconds?: number;
  signal?: AbortSignal;
  onCreated?: (ask: AskView) => void;
}

/**
 * Runs nodes in order. When a node interrupts, asks through askgate and re-runs that node from
 * its start with the answers so far (its n-th `interrupt()` returns the n-th answer).
 */
export async function runWithAskgate<S extends object>(
  nodes: [string, GraphNode<S>][],
  initial: S,
  opts: RunOptions,
): Promise<S> {
  let state = initial;
  for (const [name, node] of nodes) {
    const resumes: AskResult[] = [];
    for (;;) {
      let next = 0;
      const interrupt = (questions: Questions): AskResult => {
        const answer = resumes[next++];
        if (answer) return answer;
        throw new Interrupt(questions);
      };
      try {
        state = { ...state, ...(await node(state, interrupt)) };
        break;
      } catch (error) {
        if (!(error instanceof Interrupt)) throw error;
        const input: AskInput = {
          runId: opts.threadId,
          questions: error.questions,
          ...(opts.to ? { to: opts.to } : {}),
          ...(opts.timeoutSeconds ? { timeoutSeconds: opts.timeoutSeconds } : {}),
        };
        const idempotencyKey = `${opts.threadId}-${name}-${resumes.length}`;
        resumes.push(await opts.client.ask(input, { idempotencyKey, signal: opts.signal, onCreated: opts.onCreated }));
      }
    }
  }
  return state;
}

/** The demo graph's state. */
export interface ReleaseState {
  version: string;
  target?: string;
  checks?: string[];
  log: string[];
}

/** A two-node release graph: pick a target, then pick the checks; no answer falls back to the safe choice. */
export const releaseGraph: [string, GraphNode<ReleaseState>][] = [
  [
    'choose_target',
    (state, interrupt) => {
      const answer = interrupt([
        {
          id: 'target',
          header: 'Deploy',
          question: `Where should ${state.version} go first?`,
          options: [{ label: 'Staging (Recommended)' }, { label: 'Production' }],
        },
      ]);
      const target = answer.status === 'answered' ? answer.answers.target![0]! : 'Staging (Recommended)';
      return {
        target,
        log: [...state.log, `target: ${target}${answer.status === 'no_answer' ? ` (assumed: ${answer.reason})` : ''}`],
      };
    },
  ],
  [
    'choose_checks',
    (state, interrupt) => {
      const answer = interrupt([
        {
          id: 'checks',
          header: 'Checks',
          question: `Which checks before ${state.target}?`,
          multiSelect: true,
          options: [{ label: 'smoke' }, { label: 'load' }, { label: 'security' }],
        },
      ]);
      const checks = answer.status === 'answered' ? answer.answers.checks! : ['smoke'];
      return { checks, log: [...state.log, `checks: ${checks.join(', ')}`] };
    },
  ],
];

/** The demo: run the release graph, answering each interrupt through askgate. */
async function main(): Promise<void> {
  const url = process.env.ASKGATE_URL ?? 'http://127.0.0.1:7420';
  const spec = process.env.ASKGATE_DEFAULT_TO;
  const to = spec ? { channel: spec.slice(0, spec.indexOf(':')), chat: spec.slice(spec.indexOf(':') + 1) } : undefined;
  const final = await runWithAskgate(
    releaseGraph,
    { version: 'v2.3', log: [] },
    {
      client: new AskgateClient({ url, token: process.env.ASKGATE_API_TOKEN }),
      threadId: `langgraph-demo-${Date.now()}`,
      to,
      timeoutSeconds: 300,
      onCreated: (ask) =>
        console.log(
          `Interrupted: ask ${ask.id} (${ask.questions[0]!.question}). Answer it in the chat, or:\n` +
            `  curl -s -X POST ${url}/v1/asks/${ask.id}/answer -H 'content-type: application/json' -d '{"answers": {"${ask.questions[0]!.id}": ["${ask.questions[0]!.options[0]!.label}"]}}'`,
        ),
    },
  );
  console.log(final.log.join('\n'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  void main().catch((error) => (console.error(error), process.exit(1)));

/**
 * One agent, API ask → API answer → the agent returns (issue 19), durable mode (askgate's normal
 * Redis backend): the agent calls `POST /v1/asks?wait=60` (an API ask, no chat) in a closed loop;
 * a second client hears of the new ask from askgate's history announcement on Redis pub/sub
 * (`"<askId> <runId>"`, what a console or dashboard listens to) and answers it at once with
 * `POST /v1/asks/:id/answer`; the cycle ends when the agent's call returns `answered`.
 * If no announcement arrives within {@link FALLBACK_MS}, the answerer polls `GET /v1/runs/:runId`
 * instead (counted as `fallbacks`), so the row keeps working if the announcement changes.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { HttpClient, sleep } from './lib/http.js';
import { openWindow, PREFIX, startStack, type Window } from './lib/stack.js';
import { summarize, type Summary } from './lib/stats.js';
import { StoreKeys } from '../src/store/keys.js';
import { thin } from './full-cycle.js';

/** Options of {@link apiCycle}. */
export interface ApiCycleOptions {
  warmupCycles: number;
  cycles: number;
}

/** What the API-cycle row measured. */
export interface ApiCycleResult {
  cycles: number;
  seconds: number;
  cyclesPerSecond: number;
  /** The agent's view: `POST /v1/asks?wait=60` sent → it returned `answered` (ms). */
  cycleMs: Summary;
  /** Agent's POST sent → the answerer heard of the ask (ms). */
  seenMs: Summary;
  /** Answer POST sent → the agent's call returned (ms). */
  answerToAgentMs: Summary;
  /** askgate CPU per cycle (ms), from its process.cpuUsage over the window. */
  askgateCpuMsPerCycle: number;
  /** Per cycle: commands askgate's clients sent and socket writes (round trips on the wire). */
  perCycle: { clientCommands: number; clientWrites: number; redisServerCommands: number };
  errors: number;
  errorSamples: string[];
  fallbacks: number;
  askgateProblems: { count: number; samples: string[] };
  window: Window;
  samples: number[];
}

const QUESTION = [
  { id: 'env', question: 'Where should I deploy?', options: [{ label: 'Staging' }, { label: 'Production' }] },
];
const ANSWER = { answers: { env: ['Staging'] }, by: 'bench-human' };
const RUN = 'api-agent';
const FALLBACK_MS = 200;

export async function apiCycle(opts: ApiCycleOptions): Promise<ApiCycleResult> {
  const stack = await startStack();
  const keys = new StoreKeys(PREFIX);
  const sub = new Redis(stack.redis.url, { maxRetriesPerRequest: null });
  const human = new HttpClient(stack.child.url);
  let errors = 0;
  const errorSamples: string[] = [];
  const fail = (what: string) => {
    errors++;
    if (errorSamples.length < 8) errorSamples.push(what.slice(0, 300));
  };
  try {
    // The answerer: answers each new ask of the agent's run once, as soon as it hears of it.
    let sentAt = 0;
    let answeredId = '';
    let seenAt = 0;
    let answerSentAt = 0;
    const answer = (id: string) => {
      if (id === answeredId) return;
      answeredId = id;
      seenAt = performance.now();
      answerSentAt = seenAt;
      human.json('POST', `/v1/asks/${id}/answer`, ANSWER).then(
        (r) => {
          if (r.status !== 200) fail(`answer ${id}: ${r.status} ${JSON.stringify(r.body)}`);
        },
        (e: Error) => fail(`answer ${id}: ${e.message}`),
      );
    };
    sub.on('message', (_channel: string, text: string) => {
      const [id, runId] = text.split(' ');
      if (runId === RUN && id && sentAt) answer(id);
    });
    await sub.subscribe(keys.historyChannel());

    let fallbacks = 0;
    const cycle = async (): Promise<number> => {
      seenAt = 0;
      sentAt = performance.now();
      const before = answeredId;
      let done = false;
      const poll = async () => {
        while (!done && answeredId === before) {
          const r = await human.json<{ current?: { id: string } }>('GET', `/v1/runs/${RUN}`);
          if (done || answeredId !== before) return;
          if (r.body.current && r.body.current.id !== before) {
            fallbacks++;
            return answer(r.body.current.id);
          }
          await sleep(20);
        }
      };
      const timer = setTimeout(() => void poll().catch((e: Error) => fail(`poll: ${e.message}`)), FALLBACK_MS);
      const reply = await stack.api.json('POST', '/v1/asks?wait=60', { runId: RUN, questions: QUESTION }, 70_000);
      const end = performance.now();
      done = true;
      clearTimeout(timer);
      if (reply.status !== 201 || reply.body.status !== 'answered')
        fail(`ask: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`);
      return end;
    };

    for (let n = 0; n < opts.warmupCycles; n++) await cycle();
    const close = await openWindow(stack);
    const t0 = performance.now();
    const cycleMs = new Float64Array(opts.cycles);
    const seenMs: number[] = [];
    const answerToAgentMs: number[] = [];
    for (let n = 0; n < opts.cycles; n++) {
      const end = await cycle();
      cycleMs[n] = end - sentAt;
      if (seenAt) {
        seenMs.push(seenAt - sentAt);
        answerToAgentMs.push(end - answerSentAt);
      }
    }
    const seconds = (performance.now() - t0) / 1000;
    const window = await close();
    const serverCommands = Object.values(window.redisCommands).reduce((a, b) => a + b, 0);
    return {
      cycles: opts.cycles,
      seconds,
      cyclesPerSecond: opts.cycles / seconds,
      cycleMs: summarize(cycleMs),
      seenMs: summarize(seenMs),
      answerToAgentMs: summarize(answerToAgentMs),
      askgateCpuMsPerCycle: (window.child.cpuCores * window.seconds * 1000) / opts.cycles,
      perCycle: {
        clientCommands: window.child.redisCommands / opts.cycles,
        clientWrites: window.child.redisWrites / opts.cycles,
        redisServerCommands: serverCommands / opts.cycles,
      },
      errors,
      errorSamples,
      fallbacks,
      askgateProblems: stack.child.problems(),
      window,
      samples: thin(Array.from(cycleMs), 5000),
    };
  } finally {
    human.close();
    sub.disconnect();
    await stack.close();
  }
}

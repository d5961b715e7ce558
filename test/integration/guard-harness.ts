import { afterAll, beforeAll } from 'vitest';
import { AskgateClient, type AskView } from '../../src/client/index.js';
import type { RunningAskgate } from '../../src/main.js';
import { startTestApp, testEnv } from '../helpers/app.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { createToolGuard } from '../../src/guard/index.js';
import type { GuardDecision, ToolGuard } from '../../src/guard/types.js';

// The guard the framework tests run with: the real createToolGuard (it follows the run's event
// stream on a real askgate), with every decision it makes kept so a test can compare what the
// model read with what the guard decided.

/** A guard under test: every decision it made is kept, with how many checks began. */
export interface TestGuard extends ToolGuard {
  /** Every decision, in order, with the tool's name. */
  readonly decisions: { tool: string; decision: GuardDecision }[];
  /** How many checks have begun (a held one counts before it resolves). */
  readonly started: number;
  /** The blocked decisions of `tool`, in order. */
  blocked(tool: string): Extract<GuardDecision, { run: false }>[];
}

const open: ToolGuard[] = [];

/** Keeps `guard` to be closed by {@link closeGuards}. */
export function kept<T extends ToolGuard>(guard: T): T {
  open.push(guard);
  return guard;
}

/** Closes every guard the tests made (their event streams). */
export function closeGuards(): void {
  for (const guard of open.splice(0)) guard.close();
}

/**
 * A test file's world: a real askgate on a private redis-server, started before its tests and
 * stopped after them (with every guard they made); `ready` gets an SDK client of it.
 */
export function useGuardWorld(ready: (client: AskgateClient) => void): void {
  let redis: TestRedis | undefined;
  let app: RunningAskgate | undefined;
  beforeAll(async () => {
    redis = await startRedis();
    app = await startTestApp(testEnv({ REDIS_URL: redis.url }));
    ready(new AskgateClient({ url: app.url }));
  });
  afterAll(async () => {
    closeGuards();
    await app?.close();
    await redis?.stop();
  });
}

/** A real guard of `runId` (closed by {@link closeGuards}), its decisions recorded. */
export function testGuard(
  client: AskgateClient,
  runId: string,
  opts: { allow?: readonly string[]; hold?: boolean } = {},
): TestGuard {
  return recording(kept(createToolGuard({ client, runId, ...opts })));
}

/**
 * Resolves once `guard` lets `tool` run: the answer has reached it (through its event stream, a few
 * ms after askgate took it). A probe while it has not is a blocked check, recorded on the ask.
 */
export async function untilReleased(guard: ToolGuard, tool: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await guard.check(tool)).run) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${tool} stayed blocked`);
}

function recording(inner: ToolGuard): TestGuard {
  const decisions: TestGuard['decisions'] = [];
  let started = 0;
  return {
    decisions,
    get started() {
      return started;
    },
    blocked: (tool) => decisions.flatMap((d) => (d.tool === tool && !d.decision.run ? [d.decision] : [])),
    async check(tool) {
      started++;
      const decision = await inner.check(tool);
      decisions.push({ tool, decision });
      return decision;
    },
    close: () => inner.close(),
  };
}

/** Opens a question on the run (the run is now waiting for a person). */
export function openQuestion(client: AskgateClient, runId: string): Promise<AskView> {
  return client.create({
    runId,
    questions: [
      { id: 'window', header: 'Deploy', question: 'Deploy v2.3 now?', options: [{ label: 'Yes' }, { label: 'No' }] },
    ],
  });
}

/** Opens an approval of `action` with `args` on the run. */
export function openApproval(
  client: AskgateClient,
  runId: string,
  action: string,
  args: Record<string, unknown>,
): Promise<AskView> {
  return client.create({ runId, approval: { action, arguments: args } });
}

/** Resolves once `guard` has started `count` checks (a held check has begun waiting). */
export async function checksStarted(guard: Pick<TestGuard, 'started'>, count: number): Promise<void> {
  for (let i = 0; i < 500 && guard.started < count; i++) await new Promise((r) => setTimeout(r, 10));
  if (guard.started < count) throw new Error(`only ${guard.started} of ${count} checks started`);
}

/** The message of the one blocked `deploy` call, checked to be a held call whose ask `askId` ended without approval. */
export function endedBlock(guard: TestGuard, askId: string): string {
  const [block, ...more] = guard.blocked('deploy');
  if (!block || more.length || block.reason !== 'ask_ended' || block.askId !== askId)
    throw new Error(`not one ask_ended block for ${askId}: ${JSON.stringify(guard.blocked('deploy'))}`);
  return block.message;
}

/** The tools of the `guard_blocked` entries on ask `askId` (once the guard's background notes landed). */
export async function guardBlockedTools(client: AskgateClient, askId: string, count = 1): Promise<string[]> {
  for (let i = 0; ; i++) {
    const { events } = await client.events(askId);
    const tools = events.flatMap((e) => (e.type === 'guard_blocked' ? [(e as { tool: string }).tool] : []));
    if (tools.length >= count || i >= 200) return tools;
    await new Promise((r) => setTimeout(r, 25));
  }
}

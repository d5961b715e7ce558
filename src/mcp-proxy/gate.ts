// The approval gate: a gated tool call becomes one approval ask in askgate, and the upstream is
// called only after the person approved it, exactly once, with the arguments whose hash equals the
// decision's `effectiveHash`. Every call of the same tool with the same arguments while that ask
// lives (a host's re-send, `await_approval`, `tasks/get`) joins the same entry: the same ask, the
// same single upstream call and its result.
import { createHash, randomUUID } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { AskgateApiError, assertApproved, ApprovalError, type AskgateClient, type AskInput } from '../client/index.js';
import { retryTransient } from '../client/http.js';
import { actionHash } from '../app/action-hash.js';
import { ApprovalRequestSchema } from '../core/approval/approval-schema.js';
import { shorten } from '../core/text.js';
import type { AskResult, AskView, Target } from '../core/schemas.js';
import { gateError, pendingResult, refusedResult } from './results.js';
import type { UpstreamConnection } from './upstream.js';

/** Options of {@link approvalGate}. */
export interface GateOptions {
  client: AskgateClient;
  upstream: UpstreamConnection;
  runId: string;
  to?: Target | Target[];
  timeoutSeconds: number;
  waitMs: number;
}

/** One gated call while its ask lives: the ask, and the one promise of its outcome. */
interface Entry {
  key: string;
  tool: string;
  /** The created ask (or why it could not be created). */
  created: Promise<AskView | CallToolResult>;
  /** The decision, then the upstream's result (at most one upstream call); never rejects. */
  final: Promise<CallToolResult>;
  result?: CallToolResult;
  askId?: string;
  ask?: AskView;
  /** Callers waiting on it right now. */
  waiters: number;
  /** Set once the ask has a decision (nothing left to cancel). */
  decided: boolean;
  /** Set when askgate did not create the ask in time: the host was told it did not run, so it never runs. */
  abandoned?: boolean;
}

const ajv = new Ajv({ allErrors: false, strict: false, logger: false });
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
/** How many ended entries stay readable by ask id (for a late `await_approval` or `tasks/get`). */
const KEEP_ENDED = 1_000;
const DECISIONS = ['approve', 'reject', 'request_changes', 'edit'] as const;

/** The approval ask of one call (the tool's description as summary, its inputSchema as the edit schema). */
function approvalInput(tool: Tool, args: Record<string, unknown>, runId: string, opts: GateOptions): AskInput {
  const firstLine = (tool.description ?? '').split('\n')[0]!.trim();
  const summary = firstLine ? shorten(firstLine, 300) : undefined;
  // ajv here and in askgate is draft-07: a `$schema` naming another draft would not compile.
  const { $schema: _draft, ...argumentsSchema } = tool.inputSchema as Record<string, unknown>;
  const approval = {
    action: tool.name,
    arguments: args,
    ...(summary && ApprovalRequestSchema.shape.summary.safeParse(summary).success ? { summary } : {}),
    decisions: [...DECISIONS],
    argumentsSchema,
  };
  return { runId, ...(opts.to ? { to: opts.to } : {}), timeoutSeconds: opts.timeoutSeconds, approval };
}

/** The gate of one proxy process. */
export function approvalGate(opts: GateOptions) {
  const { client, upstream } = opts;
  const live = new Map<string, Entry>();
  const byAsk = new Map<string, Entry>();
  let started = 0;
  const validators = new Map<string, ValidateFunction>();
  // Part of every idempotency key: a key from an earlier process (same --run-id, same call) must
  // never bring back that process's ask, whose approval was for that call, not this one.
  const nonce = randomUUID();

  /** Waits for the ask's end through long polls, riding out askgate restarts until past its deadline. */
  const decision = async (ask: AskView): Promise<AskResult> => {
    let current = ask;
    while (current.status === 'pending') {
      const untilMs = Date.parse(current.expiresAt) + 120_000 - Date.now();
      const id = current.id;
      try {
        current = await retryTransient(() => client.get(id, { wait: 30 }), undefined, Math.max(untilMs, 5_000));
      } catch (error) {
        if (error instanceof AskgateApiError && !error.transient) throw error;
        if (Date.now() > Date.parse(current.expiresAt) + 120_000) throw error;
        await sleep(1_000);
      }
    }
    if (!current.result) throw new Error(`ask ${current.id} ended without a result`);
    return current.result;
  };

  /** The edited arguments against the tool's own inputSchema (askgate checked them too; this is the proxy's own check). */
  const fitsSchema = (tool: Tool, args: Record<string, unknown>): string | null => {
    const { $schema: _draft, ...schema } = tool.inputSchema as Record<string, unknown>;
    const text = JSON.stringify(schema);
    let validate = validators.get(text);
    if (!validate) {
      try {
        validate = ajv.compile(schema);
      } catch {
        return null; // Not checkable here; askgate refuses such a schema when asked.
      }
      if (validators.size > 200) validators.clear();
      validators.set(text, validate);
    }
    if (validate(args)) return null;
    const first = validate.errors?.[0];
    const where = first?.instancePath ? `${first.instancePath.slice(1).replace(/\//g, '.')} ` : '';
    return `${where}${first?.message ?? 'invalid'}`;
  };

  /** After the decision: the upstream's result (one call), or the tool error saying why it did not run. */
  const outcome = async (entry: Entry, tool: Tool, proposed: Record<string, unknown>): Promise<CallToolResult> => {
    const created = await entry.created;
    if ('content' in created) return created;
    let result: AskResult;
    try {
      result = await decision(created);
    } catch (error) {
      return gateError(
        `askgate could not tell the decision on ${tool.name}: ${(error as Error).message}. It was not run.`,
      );
    } finally {
      entry.decided = true;
    }
    if (entry.abandoned) return gateError(`${tool.name} was not run: askgate did not take the approval in time.`);
    if (result.status === 'no_answer' || result.decision === 'reject' || result.decision === 'request_changes')
      return refusedResult(tool.name, result);
    const toRun = result.decision === 'edit' ? (result.arguments ?? {}) : proposed;
    const problem = result.decision === 'edit' ? fitsSchema(tool, toRun) : null;
    if (problem) return gateError(`The edited arguments do not fit ${tool.name}'s inputSchema (${problem}); not run.`);
    let args: Record<string, unknown>;
    try {
      // The hash of what runs must equal the decision's effectiveHash: checked, not assumed.
      args = assertApproved(result, tool.name, toRun);
    } catch (error) {
      if (error instanceof ApprovalError) return gateError(`Not run: ${error.message}.`, { status: 'refused' });
      throw error;
    }
    try {
      return await upstream.callTool(tool.name, args, {});
    } catch (error) {
      return gateError(
        `A person approved ${tool.name}, but the upstream MCP server failed: ${(error as Error).message}`,
      );
    }
  };

  const start = (tool: Tool, args: Record<string, unknown>, key: string): Entry => {
    const serial = ++started;
    const input = approvalInput(tool, args, `${opts.runId}.${key.slice(0, 16)}`, opts);
    const entry: Entry = { key, tool: tool.name, waiters: 0, decided: false } as Entry;
    // Creation retries (same idempotency key: one ask) while askgate restarts, up to one wait. The
    // key is this entry's own: re-sends join the entry in `live`, never askgate's idempotency.
    entry.created = retryTransient(
      () => client.create(input, { idempotencyKey: `mcp-proxy-${nonce}-${serial}` }),
      undefined,
      Math.max(opts.waitMs, 5_000),
    ).then(
      async (ask) => {
        entry.askId = ask.id;
        entry.ask = ask;
        byAsk.set(ask.id, entry);
        // Created after the host was told it did not run: withdraw the question (outcome() refuses it anyway).
        if (entry.abandoned)
          await retryTransient(() => client.cancel(ask.id), undefined, 60_000).catch(() => undefined);
        return ask;
      },
      (error: unknown) =>
        gateError(`askgate could not ask for approval of ${tool.name}: ${(error as Error).message}. It was not run.`),
    );
    entry.final = outcome(entry, tool, args)
      .catch((error: unknown) =>
        gateError(`The approval of ${tool.name} failed: ${(error as Error).message}. It was not run.`),
      )
      .then((r) => (entry.result = r));
    live.set(key, entry);
    return entry;
  };

  /** Marks an ended entry delivered: a later identical call is a new approval. */
  const delivered = (entry: Entry) => {
    if (live.get(entry.key) !== entry) return;
    live.delete(entry.key);
    if (byAsk.size > KEEP_ENDED)
      for (const [id, e] of byAsk) {
        if (byAsk.size <= KEEP_ENDED) break;
        if (e.result && !live.has(e.key)) byAsk.delete(id);
      }
  };

  /** Waits up to `waitMs` on an entry: its result (delivered), or pending naming the ask. */
  const waitOn = async (entry: Entry, signal: AbortSignal | undefined): Promise<CallToolResult> => {
    entry.waiters++;
    const stop = new AbortController();
    const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    try {
      // Creation rides out a short askgate restart, but a call never waits on it past its bound.
      const bound = Math.max(opts.waitMs, 5_000);
      const created = await Promise.race([entry.created, sleep(bound, both).then(() => undefined)]);
      if (!created) {
        entry.abandoned = true;
        delivered(entry);
        return gateError(
          `askgate did not take the approval of ${entry.tool} in time; it was not run and will not run for this call. Try again later.`,
        );
      }
      if ('content' in created) {
        delivered(entry);
        return created;
      }
      const done = await Promise.race([entry.final, sleep(opts.waitMs, both).then(() => undefined)]);
      if (done) {
        delivered(entry);
        return done;
      }
      if (signal?.aborted) return gateError('The call was cancelled.');
      return pendingResult(entry.tool, created.id, created.expiresAt);
    } finally {
      stop.abort();
      entry.waiters--;
      // A host that cancels its only waiting call withdraws the question (nothing runs without it).
      if (signal?.aborted && entry.waiters === 0 && !entry.decided && entry.askId) {
        await client.cancel(entry.askId).catch(() => undefined);
        delivered(entry);
      }
    }
  };

  /** Finds (or starts) the entry of one call: same tool, same canonical arguments, same live ask. */
  const entryOf = (tool: Tool, args: Record<string, unknown>): Entry => {
    const key = createHash('sha256')
      .update(`${opts.runId}\n${actionHash(tool.name, args)}`)
      .digest('hex');
    return live.get(key) ?? start(tool, args, key);
  };

  return {
    /** A gated call: approval first, then the upstream's result; returns within `waitMs` (pending otherwise). */
    call(tool: Tool, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
      // Arguments the tool would refuse are not worth a person's time.
      const problem = fitsSchema(tool, args);
      if (problem)
        return Promise.resolve(
          gateError(
            `Invalid arguments for ${tool.name} (${problem}): fix them and call again; nothing was asked or run.`,
          ),
        );
      return waitOn(entryOf(tool, args), signal);
    },

    /** `await_approval`: keeps waiting on a pending call by its ask id. */
    async awaitApproval(askId: string, signal?: AbortSignal): Promise<CallToolResult> {
      const entry = byAsk.get(askId);
      if (!entry)
        return gateError(
          `No pending approval with askId ${JSON.stringify(askId.slice(0, 40))} in this proxy: pass the askId of a pending result.`,
        );
      if (entry.result && !live.has(entry.key)) return entry.result;
      return waitOn(entry, signal);
    },

    /** The Tasks extension: creates (or joins) the call's ask without waiting; the ask id is the task id. */
    async createTask(tool: Tool, args: Record<string, unknown>): Promise<AskView | CallToolResult> {
      const problem = fitsSchema(tool, args);
      if (problem) return gateError(`Invalid arguments for ${tool.name} (${problem}): nothing was asked or run.`);
      const entry = entryOf(tool, args);
      const created = await entry.created;
      if ('content' in created) delivered(entry);
      return created;
    },

    /** A task's state without waiting: working, or the call's final result (then delivered). */
    task(askId: string): { tool: string; ask?: AskView; result?: CallToolResult } | undefined {
      const entry = byAsk.get(askId);
      if (entry?.result) delivered(entry);
      return entry;
    },

    /** Cancels a call's ask (tasks/cancel); a decided one is left as it is. */
    async cancel(askId: string): Promise<boolean> {
      const entry = byAsk.get(askId);
      if (!entry) return false;
      if (!entry.decided) await client.cancel(askId).catch(() => undefined);
      return true;
    },

    /** The host left: withdraw every question nobody decided yet (nothing runs after this). */
    async close(): Promise<void> {
      await Promise.allSettled(
        [...live.values()].filter((e) => !e.decided && e.askId).map((e) => client.cancel(e.askId!)),
      );
    },
  };
}

/** The gate of one proxy process. */
export type ApprovalGate = ReturnType<typeof approvalGate>;

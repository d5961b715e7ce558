import type { History } from './history.js';
import type { BeforeVerdict, Exchange, InterposerHooks } from './interposer.js';
import { seeded } from '../../helpers/seeded.js';

/** Which platform's error shapes to answer with. */
export type Platform = 'telegram' | 'slack' | 'discord';

/** Fault rates (0–1) per matching call; at most one fault per call, drawn in this order. */
export interface FaultPlan {
  platform: Platform;
  /** Calls that get faults (interposer call names). */
  calls: readonly string[];
  /** Also fault this exchange? (e.g. skip Telegram replies to people). */
  eligible?: (ex: Exchange) => boolean;
  rate429?: number;
  /** retry_after in seconds for a 429 (default 1–3 s). */
  retryAfterS?: (random: () => number) => number;
  rate5xx?: number;
  /** Reset before the fake sees the request (nothing happened). */
  rateResetBefore?: number;
  /** Reset after the fake acted (a send happened; askgate cannot know). */
  rateResetAfter?: number;
  rateStall?: number;
  stallMs?: number;
  seed: number;
}

/** What the faults did, and whether askgate waited out every 429. */
export interface FaultTally {
  injected: Record<string, number>;
  /** The same send or edit retried earlier than the retry_after of its 429. */
  earlyRetries: number;
  /** Other requests to the same rate-limit bucket (chat, or route and channel) within a 429's retry_after. */
  bucketProbes: number;
  /** Calls that got a reset after the fake acted, by chat key (possible duplicates). */
  resetAfterKeys: string[];
}

/** Where a 429 applies: Telegram per chat (sends and edits alike), Slack and Discord per method (route) and channel. */
function chatKey(platform: Platform, ex: Exchange): string {
  if (platform === 'telegram') return String(ex.params.chat_id ?? '');
  if (platform === 'slack') return `${ex.call}:${String(ex.params.channel ?? '')}`;
  return `${ex.call}:${/\/channels\/(\d+)/.exec(ex.path)?.[1] ?? ''}`;
}

const TOKEN = /([0-9A-Za-z]{12,24})\.\d+\.[1-4os]/;

/** One send or edit job: the ask whose buttons it carries, or the message it edits. */
function jobKey(platform: Platform, ex: Exchange): string {
  const token = TOKEN.exec(JSON.stringify(ex.params))?.[1];
  if (token) return `${ex.call}:${token}`;
  if (platform === 'telegram') return `${ex.call}:${String(ex.params.chat_id)}:${String(ex.params.message_id)}`;
  if (platform === 'slack') return `${ex.call}:${String(ex.params.channel)}:${String(ex.params.ts)}`;
  return `${ex.call}:${ex.path}`;
}

function tooMany(platform: Platform, seconds: number): BeforeVerdict {
  if (platform === 'telegram')
    return {
      respond: {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: `Too Many Requests: retry after ${seconds}`,
          parameters: { retry_after: seconds },
        },
      },
    };
  if (platform === 'slack')
    return {
      respond: { status: 429, body: { ok: false, error: 'ratelimited' }, headers: { 'retry-after': String(seconds) } },
    };
  return {
    respond: {
      status: 429,
      body: { message: 'You are being rate limited.', retry_after: seconds, global: false },
      headers: {
        'retry-after': String(seconds),
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset-after': String(seconds),
        'x-ratelimit-bucket': 'rel-bucket',
        'x-ratelimit-scope': 'user',
      },
    },
  };
}

function serverError(platform: Platform, status: number): BeforeVerdict {
  if (platform === 'telegram')
    return {
      respond: {
        status,
        body: { ok: false, error_code: status, description: status === 502 ? 'Bad Gateway' : 'Internal Server Error' },
      },
    };
  if (platform === 'slack') return { respond: { status, body: { ok: false, error: 'fatal_error' } } };
  return { respond: { status, body: { message: `${status}: Server Error`, code: 0 } } };
}

/**
 * Interposer hooks injecting platform faults by plan: 429 with retry_after, 500/502/503, resets
 * before or after the fake acted, and stalls. Every fault is an `inject fault` history event.
 */
export function platformFaults(plan: FaultPlan, history: History): { hooks: InterposerHooks; tally: FaultTally } {
  const random = seeded(plan.seed);
  const tally: FaultTally = { injected: {}, earlyRetries: 0, bucketProbes: 0, resetAfterKeys: [] };
  const blockedUntil = new Map<string, number>();
  const jobBlockedUntil = new Map<string, number>();
  const resetAfter = new Set<number>();
  const count = (kind: string, ex: Exchange, extra: Record<string, unknown> = {}) => {
    tally.injected[kind] = (tally.injected[kind] ?? 0) + 1;
    history.inject('fault', {
      platform: plan.platform,
      data: { kind, call: ex.call, chat: chatKey(plan.platform, ex), ...extra },
    });
  };
  const hooks: InterposerHooks = {
    before: async (ex) => {
      if (!plan.calls.includes(ex.call) || !(plan.eligible?.(ex) ?? true)) return undefined;
      const key = chatKey(plan.platform, ex);
      const job = jobKey(plan.platform, ex);
      if ((jobBlockedUntil.get(job) ?? 0) > ex.at) {
        tally.earlyRetries++;
        history.observe('platform', {
          platform: plan.platform,
          result: 'early retry',
          data: { call: ex.call, job, earlyByMs: jobBlockedUntil.get(job)! - ex.at },
        });
      } else if ((blockedUntil.get(key) ?? 0) > ex.at + 50) {
        tally.bucketProbes++;
        history.observe('platform', {
          platform: plan.platform,
          result: 'bucket probe',
          data: { call: ex.call, chat: key, earlyByMs: blockedUntil.get(key)! - ex.at },
        });
      }
      let r = random();
      if (r < (plan.rate429 ?? 0)) {
        const seconds = plan.retryAfterS?.(random) ?? 1 + Math.floor(random() * 3);
        blockedUntil.set(key, ex.at + seconds * 1000);
        jobBlockedUntil.set(job, ex.at + seconds * 1000);
        count('429', ex, { retryAfterS: seconds });
        return tooMany(plan.platform, seconds);
      }
      r -= plan.rate429 ?? 0;
      if (r < (plan.rate5xx ?? 0)) {
        const status = [500, 502, 503][Math.floor(random() * 3)]!;
        count(String(status), ex);
        return serverError(plan.platform, status);
      }
      r -= plan.rate5xx ?? 0;
      if (r < (plan.rateResetBefore ?? 0)) {
        count('reset-before', ex);
        return 'reset';
      }
      r -= plan.rateResetBefore ?? 0;
      if (r < (plan.rateResetAfter ?? 0)) {
        resetAfter.add(ex.id);
        return undefined;
      }
      r -= plan.rateResetAfter ?? 0;
      if (r < (plan.rateStall ?? 0)) {
        count('stall', ex, { ms: plan.stallMs ?? 3000 });
        await new Promise((res) => setTimeout(res, plan.stallMs ?? 3000));
      }
      return undefined;
    },
    after: (ex) => {
      if (!resetAfter.delete(ex.id)) return undefined;
      count('reset-after', ex);
      tally.resetAfterKeys.push(chatKey(plan.platform, ex));
      return 'reset';
    },
  };
  return { hooks, tally };
}

import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { startAskgate, type RunningAskgate, type StartOptions } from '../../src/main.js';
import type { Channel } from '../../src/core/ports.js';

/** Environment for fast tests: 1 s minimum timeout, quick reconciler, quiet logs. */
export function testEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PORT: '0',
    ASKGATE_KEY_PREFIX: `t${randomBytes(4).toString('hex')}`,
    ASKGATE_TIMEOUT_MIN_SECONDS: '1',
    ASKGATE_RECONCILE_INTERVAL_MS: '100',
    ASKGATE_RECONCILE_GRACE_MS: '300',
    ASKGATE_SWEEP_DELAY_MS: '500',
    ASKGATE_OUTBOX_BASE_DELAY_MS: '20',
    ASKGATE_OUTBOX_MAX_DELAY_MS: '200',
    LOG_LEVEL: 'silent',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Starts askgate in this process with the test environment (Redis when `REDIS_URL` is given). */
export async function startTestApp(
  env: Record<string, string>,
  channels: Channel[] = [],
  options: Omit<StartOptions, 'channels'> = {},
): Promise<RunningAskgate> {
  return startAskgate(loadConfig(env), { ...options, channels });
}

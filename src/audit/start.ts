// Wires the audit trail into a running askgate: the chain on its own connection, the sequencer
// and GET /v1/audit. main.ts calls startAudit once; the server's close stops it.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { AskStore, Clock, Logger, ResultBus } from '../core/ports.js';
import { RedisAuditChain } from '../store/audit-chain.js';
import { AuditSequencer, type SequencerTuning } from './sequencer.js';
import { registerAuditRoute } from './routes.js';
import { loadSigningKey } from './crypto.js';

/** What {@link startAudit} needs from the composition root. */
export interface AuditParts {
  server: FastifyInstance;
  config: Config;
  store: Pick<AskStore, 'getMany'>;
  bus: Pick<ResultBus, 'subscribeHistory' | 'onResync'>;
  logger: Logger;
  clock: Clock;
  /** Tests shorten the sequencer's times. */
  tuning?: Partial<SequencerTuning>;
}

/** The audit trail of one process: its sequencer (tests drain it) and its chain. */
export interface RunningAudit {
  sequencer: AuditSequencer;
  chain: RedisAuditChain;
}

const DAY_MS = 86_400_000;

/**
 * Starts the audit trail when askgate stores in Redis and `ASKGATE_AUDIT` is not `off` (in memory
 * mode nothing is kept across a restart, so there is no trail and no route: `GET /v1/audit`
 * answers 404). Stopped by the server's close, before the store's connections.
 */
export function startAudit(parts: AuditParts): RunningAudit | null {
  const { config, server } = parts;
  if (!config.redisUrl || !config.audit.enabled) return null;
  const cluster = config.redisCluster && {
    nodes: config.redisCluster.nodes,
    redisOptions: {
      username: config.redisCluster.username,
      password: config.redisCluster.password,
      ...(config.redisCluster.tls && { tls: {} }),
    },
  };
  const chain = RedisAuditChain.open({
    prefix: config.keyPrefix,
    redisUrl: config.redisUrl,
    ...(cluster && { cluster }),
  });
  // The longest a record lives: the longest timeout, then the retention after it; a cursor must
  // outlive its ask's record or a rescan would append the ask's entries again.
  // An ask with a way back may wait the long maximum (an extension stays within it too).
  const recordLifeMs =
    Math.max(config.timeouts.maxSeconds, config.timeouts.asyncMaxSeconds) * 1000 + config.retentionMs;
  const sequencer = new AuditSequencer({
    chain,
    store: parts.store,
    bus: parts.bus,
    clock: parts.clock,
    logger: parts.logger,
    text: config.audit.text,
    retentionMs: config.audit.retentionMs,
    cursorHorizonMs: recordLifeMs + DAY_MS,
    ...(parts.tuning && { tuning: parts.tuning }),
  });
  const signingKey = config.audit.signingKey ? loadSigningKey(config.audit.signingKey) : undefined;
  registerAuditRoute(server, { chain, clock: parts.clock, ...(signingKey && { signingKey }) });
  server.addHook('onClose', async () => {
    await sequencer.stop();
    await chain.close();
  });
  sequencer.start();
  return { sequencer, chain };
}

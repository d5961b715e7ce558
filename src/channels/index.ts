import type { Config } from '../config.js';
import type { Channel, ChannelDirectory, Clock, Logger } from '../core/ports.js';
import { forComponent } from '../logger.js';
import type { ChannelDeps } from './descriptor.js';
import { CHANNELS } from './registry.js';

/**
 * Builds the chat channels enabled in config, in registry order. Each SDK is loaded only when its
 * platform is configured (the descriptor's `create` imports it), so the embedded default starts fast.
 */
export async function buildChannels(
  config: Config,
  logger: Logger,
  clock: Clock,
  directory: ChannelDirectory,
): Promise<Channel[]> {
  const channels: Channel[] = [];
  for (const descriptor of CHANNELS) {
    const settings = config.channels[descriptor.name];
    if (!settings) continue;
    const create = descriptor.create as (settings: unknown, deps: ChannelDeps) => Promise<Channel>;
    channels.push(await create(settings, { logger: forComponent(logger, descriptor.name), clock, directory }));
  }
  return channels;
}

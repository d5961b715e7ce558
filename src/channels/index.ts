import type { Config } from '../config.js';
import type { Channel, Clock, Logger } from '../core/ports.js';
import { forComponent } from '../logger.js';

/**
 * Builds the chat channels enabled in config. Each SDK is loaded only when its platform is
 * configured, so the embedded default starts fast.
 */
export async function buildChannels(config: Config, logger: Logger, clock: Clock): Promise<Channel[]> {
  const { telegram, slack, discord } = config.channels;
  const channels: Channel[] = [];
  if (telegram) {
    const { TelegramChannel } = await import('./telegram/telegram-channel.js');
    channels.push(new TelegramChannel({ ...telegram, logger: forComponent(logger, 'telegram'), clock }));
  }
  if (slack) {
    const { SlackChannel } = await import('./slack/slack-channel.js');
    channels.push(new SlackChannel({ ...slack, logger: forComponent(logger, 'slack'), clock }));
  }
  if (discord) {
    const { DiscordChannel } = await import('./discord/discord-channel.js');
    channels.push(new DiscordChannel({ ...discord, logger: forComponent(logger, 'discord') }));
  }
  return channels;
}

import type { z } from 'zod';
import { CHANNELS, type RegisteredChannel } from './channels/registry.js';
import type { EnvOf } from './channels/descriptor.js';

/** Turns a union into the intersection of its members. */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every registered channel's environment variables, merged. */
type ChannelEnvShape = Intersection<RegisteredChannel['env']>;

/** The environment variables of the chat platforms (each descriptor's; a platform is enabled when its bot token is set). */
export const CHANNEL_ENV = Object.assign({}, ...CHANNELS.map((c) => c.env)) as ChannelEnvShape;

/** The parsed values of {@link CHANNEL_ENV}. */
type ChannelEnv = { [K in keyof ChannelEnvShape]: z.output<ChannelEnvShape[K]> };

/** Settings of each chat platform (absent when its token is not set). */
export type ChannelsConfig = {
  [C in RegisteredChannel as C['name']]?: Exclude<ReturnType<C['settings']>, undefined>;
};

/** The settings of each enabled platform; throws `ConfigError` for a combination that cannot work. */
export function channelsConfig(e: ChannelEnv): ChannelsConfig {
  const config: Record<string, unknown> = {};
  for (const channel of CHANNELS) {
    const settings = (channel.settings as (env: EnvOf<typeof channel.env>) => unknown)(e);
    if (settings !== undefined) config[channel.name] = settings;
  }
  return config as ChannelsConfig;
}

import type { z } from 'zod';
import type { Channel, ChannelDirectory, Clock, Logger } from '../core/ports.js';
import type { MessageKey } from '../core/i18n/index.js';
import type { ChannelCapabilities } from '../core/capabilities.js';
import type { ChannelWords } from './shared/channel-words.js';

/** A zod shape of environment variables (each parses one string, or its absence). */
export type EnvShape = Readonly<Record<string, z.ZodType>>;

/** The parsed values of an {@link EnvShape}. */
export type EnvOf<S extends EnvShape> = { [K in keyof S]: z.output<S[K]> };

/** What a channel's factory gets from the shell besides its settings. */
export interface ChannelDeps {
  /** The channel's logger (component = the channel's name). */
  logger: Logger;
  clock: Clock;
  /** Conversations the channels learned, shared by every replica (a Teams conversation's service URL). */
  directory: ChannelDirectory;
}

/**
 * Everything askgate needs to know about one chat platform, exported by its folder's `descriptor.ts`
 * and listed once in `channels/registry.ts`. The descriptor file imports no SDK: `create` loads the
 * channel (and its SDK) only when the platform is configured.
 */
export interface ChannelDescriptor<N extends string = string, E extends EnvShape = EnvShape, S = unknown> {
  /** The channel's name in targets, records and logs (`telegram`). */
  readonly name: N;
  /** How people read it in outcome lines and notices ("Answered in Telegram by …"). */
  readonly displayName: string;
  /** What it renders (question kinds, buttons, forms, edits, code blocks, links): core builds its views from it. */
  readonly capabilities: ChannelCapabilities;
  /** Package names (or `@scope/` prefixes) of its SDK: only its folder may import them (test/unit/boundaries.test.ts). */
  readonly sdks: readonly string[];
  /** The longest each catalogue word may be where this channel shows it (UTF-16 units; test/unit/i18n-limits.test.ts checks every locale). */
  readonly wordLimits: ReadonlyMap<MessageKey, number>;
  /** What only this channel says, by shipped locale (`words.ts` in its folder), if anything. */
  readonly words?: ChannelWords;
  /** The longest each of its own words (keys of `words`) may be where it shows them (UTF-16 units; test/unit/i18n-limits.test.ts checks every locale). */
  readonly ownWordLimits?: ReadonlyMap<string, number>;
  /** Its environment variables. */
  readonly env: E;
  /** Its settings from the parsed variables, or undefined when it is not enabled; throws `ConfigError` for a combination that cannot work. */
  settings(env: EnvOf<E>): S | undefined;
  /** Builds the channel (a dynamic import: the SDK loads here). */
  create(settings: S, deps: ChannelDeps): Promise<Channel>;
}

/** Declares a descriptor with its literal name and typed settings (an identity function). */
export function defineChannel<const N extends string, E extends EnvShape, S>(
  descriptor: ChannelDescriptor<N, E, S>,
): ChannelDescriptor<N, E, S> {
  return descriptor;
}

import { shorten } from '../../core/text.js';
import type { Responder } from '../../core/schemas.js';

/** Longest `username` a {@link Responder} holds (core/schemas.ts). */
const USERNAME_MAX = 128;
/** Longest display `name` a {@link Responder} holds. */
const NAME_MAX = 256;

/** A platform user as the channel reads it: ids are strings, missing parts are empty or absent. */
export interface PlatformUser {
  id: string | number;
  username?: string | null | undefined;
  name?: string | null | undefined;
}

/** The person behind a platform user, as askgate records them: fields cut to the record's limits, empty ones left out. */
export function responderOf(channel: string, user: PlatformUser): Responder {
  return {
    channel,
    userId: String(user.id),
    ...(user.username ? { username: user.username.slice(0, USERNAME_MAX) } : {}),
    ...(user.name ? { name: shorten(user.name, NAME_MAX, 'utf16') } : {}),
  };
}

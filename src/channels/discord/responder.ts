import type { User } from 'discord.js';
import type { Responder } from '../../core/schemas.js';
import { responderOf as toResponder } from '../shared/responder.js';

/** The person behind a tap, a modal or a message. */
export function responderOf(user: User): Responder {
  return toResponder('discord', { id: user.id, username: user.username, name: user.globalName });
}

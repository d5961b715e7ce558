/**
 * `POST /v1/asks/:id/links` (bearer, like every /v1 route): an answer page link for one recipient,
 * for API and SDK users to send through their own systems. The body names the recipient as an
 * askgate target, `{"to": {"channel": "email", "chat": "alice@example.com"}}`: a target listing
 * one user in `users` is that person (`{"channel": "slack", "chat": "C123", "users": ["U42"]}`),
 * a target without `users` is its conversation's own id (a direct chat, an email address);
 * `{}` is a link anyone holding it may use, refused (409 `link_needs_recipient`) when the ask names
 * `users`. `option` (1–4) preselects a single choice question's option. The answer is
 * `{"url", "expiresAt"}`; 409 when the ask ended; 400 `links_not_configured` without
 * `ASKGATE_PUBLIC_URL` and `ASKGATE_LINK_SECRET`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AskgateError, invalid, toIssues } from '../core/errors.js';
import { TargetSchema } from '../core/schemas.js';
import { ASK_ID_PATTERN } from '../core/token.js';
import type { Gateway } from '../app/gateway.js';
import type { Clock } from '../core/ports.js';
import type { LinkRecipient } from './answer-token.js';
import { mintLink, type LinkSettings } from './answer-link.js';

/** The body of `POST /v1/asks/:id/links`. */
export const LinkRequestSchema = z
  .object({
    to: TargetSchema.refine((t) => (t.users?.length ?? 0) <= 1, {
      message: 'a link is for one person: list at most one user',
      path: ['users'],
    }).optional(),
    option: z.number().int().min(1).max(4).optional(),
  })
  .strict();

/** The recipient a link request names (see the file's comment). */
export function recipientOf(body: z.output<typeof LinkRequestSchema>): LinkRecipient {
  if (!body.to) return 'anyone';
  return { channel: body.to.channel, userId: body.to.users?.[0] ?? body.to.chat };
}

/** Registers the route; without `links` it answers 400 `links_not_configured`. */
export function registerLinkRoute(
  app: FastifyInstance,
  deps: { gateway: Pick<Gateway, 'get'>; clock: Clock; links?: LinkSettings },
): void {
  app.post('/v1/asks/:id/links', async (request) => {
    const id = (request.params as { id: string }).id;
    if (!deps.links)
      throw new AskgateError(
        'links_not_configured',
        'answer links need ASKGATE_PUBLIC_URL and ASKGATE_LINK_SECRET to be set on the askgate server',
      );
    if (!ASK_ID_PATTERN.test(id)) throw new AskgateError('not_found', `no ask with id "${id.slice(0, 40)}"`);
    const parsed = LinkRequestSchema.safeParse(request.body ?? {});
    if (!parsed.success) throw invalid('invalid_request', toIssues(parsed.error.issues));
    const record = await deps.gateway.get(id);
    const minted = mintLink(deps.links, record, recipientOf(parsed.data), deps.clock.now(), parsed.data.option);
    return minted;
  });
}

import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import type { RenderedWebhook } from '../core/ports.js';
import type { AskRecord, PushConfig } from '../core/schemas.js';
import { taskEvent, taskOf } from './task-view.js';

/** The header an A2A push carries its config's token in (as the SDK's own push sender names it). */
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

const serializers = {
  'a2a-1.0': new V1PushNotificationSerializer(),
  'a2a-0.3': new V03PushNotificationSerializer(),
} as const;

/**
 * The result webhook of an ask made by an A2A client, in the body of the client's protocol version:
 * A2A 1.0 gets a StreamResponse holding the whole task (`application/a2a+json`), v0.3 the task in
 * its v0.3 shape (`application/json`), both through the SDK's own serializers. The push config's
 * credentials go where the SDK's push sender puts them: `Authorization` when the config named an
 * authentication scheme, else the token in {@link NOTIFICATION_TOKEN_HEADER}. Null for an ask
 * without a push config (it gets askgate's own webhook body).
 */
export function renderPush(record: AskRecord): RenderedWebhook | null {
  const push = record.push;
  if (!push) return null;
  const { body, contentType } = serializers[push.format].serialize(taskEvent(record), taskOf(record));
  return { body, contentType, headers: pushHeaders(push) };
}

function pushHeaders(push: PushConfig): Record<string, string> {
  if (push.authorization) return { Authorization: push.authorization };
  if (push.token) return { [NOTIFICATION_TOKEN_HEADER]: push.token };
  return {};
}

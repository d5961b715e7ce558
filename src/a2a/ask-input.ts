import { createHash, randomBytes } from 'node:crypto';
import type { SendMessageRequest } from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import { invalid, toIssues } from '../core/errors.js';
import { AskRequestSchema, RunIdSchema, type AskRequest, type PushConfig, type Target } from '../core/schemas.js';
import { canonicalJson } from '../core/canonical-json.js';

/** What turning an A2A message into an ask needs to know of askgate's setup. */
export interface AskInputSettings {
  /** Target of asks whose data part gives no `to` (`ASKGATE_DEFAULT_TO`). */
  defaultTo?: Target;
  /** True when result webhooks are configured (`ASKGATE_WEBHOOK_SECRET`): push notifications are on. */
  pushEnabled: boolean;
}

/** The ask a message asks for, and the idempotency key its message id gives. */
export interface AskInput {
  request: AskRequest;
  /** Absent for a message without a `messageId`. */
  idempotency?: { key: string; requestHash: string };
  /** How the result is pushed to the callbackUrl: the body of the client's A2A version, its credentials. */
  push?: PushConfig;
}

/** An HTTP authentication scheme name (an RFC 9110 token). */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** A header value askgate will send: printable ASCII, no line breaks. */
const HEADER_VALUE = /^[\x20-\x7e]{1,1000}$/;

/** How the data part is described in errors. */
export const DATA_PART_SHAPE = '{questions (or approval), to?, runId?, timeoutSeconds?, locale?, timeZone?}';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Reads the ask out of a SendMessage request: the message's one data part holds the body of
 * `POST /v1/asks` (validated by the same schema, so errors name the same fields). `runId`
 * defaults to the message's `contextId` (an A2A context is an askgate run: a new ask in it
 * supersedes the pending one), else a fresh `a2a-<random>`; `to` defaults to `ASKGATE_DEFAULT_TO`;
 * a push notification URL becomes the ask's `callbackUrl`. The message id is the idempotency key
 * (scoped to the run): a client re-sending the same message gets the same task.
 */
export function askInput(params: SendMessageRequest, settings: AskInputSettings, version = '1.0'): AskInput {
  const message = params.message;
  if (!message) throw new RequestMalformedError(`message: required, with a data part ${DATA_PART_SHAPE}`);
  if (message.taskId !== '')
    throw new RequestMalformedError(
      'message.taskId: askgate starts a new task for every message (an ask cannot be continued); leave taskId out',
    );
  const data = message.parts.filter((p) => p.content?.$case === 'data').map((p) => p.content!.value as unknown);
  if (data.length !== 1)
    throw new RequestMalformedError(
      `message.parts: send exactly one data part ${DATA_PART_SHAPE} (found ${data.length}); text parts are ignored`,
    );
  const body = data[0];
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new RequestMalformedError(`message.parts: the data part must be an object ${DATA_PART_SHAPE}`);
  const fields = { ...(body as Record<string, unknown>) };

  if (fields.runId === undefined) fields.runId = runIdFromContext(message.contextId);
  if (fields.to === undefined && settings.defaultTo) fields.to = settings.defaultTo;
  const pushUrl = params.configuration?.taskPushNotificationConfig?.url ?? '';
  if (pushUrl !== '') {
    if (!settings.pushEnabled)
      throw new PushNotificationNotSupportedError(
        'push notifications need result webhooks: set ASKGATE_WEBHOOK_SECRET on askgate',
      );
    if (fields.callbackUrl !== undefined && fields.callbackUrl !== pushUrl)
      throw new RequestMalformedError(
        'callbackUrl: differs from the push notification URL; give one of them (they are the same thing)',
      );
    fields.callbackUrl = pushUrl;
  }
  const push = pushUrl !== '' ? pushConfig(params, version) : undefined;

  const parsed = AskRequestSchema.safeParse(fields);
  if (!parsed.success)
    throw new RequestMalformedError(invalid('invalid_request', toIssues(parsed.error.issues)).message);
  const request = parsed.data;
  if (message.messageId === '') return { request, ...(push ? { push } : {}) };
  return {
    request,
    ...(push ? { push } : {}),
    idempotency: {
      key: `a2a-${sha256(`${request.runId}\n${message.messageId}`)}`,
      requestHash: sha256(canonicalJson(request)),
    },
  };
}

/** The runId of a message without one in its data part: its contextId, checked like a runId. */
function runIdFromContext(contextId: string): string {
  if (contextId === '') return `a2a-${randomBytes(12).toString('base64url')}`;
  const checked = RunIdSchema.safeParse(contextId);
  if (!checked.success)
    throw new RequestMalformedError(
      `message.contextId: ${checked.error.issues[0]?.message ?? 'invalid'} (it is the default runId; or give a runId in the data part)`,
    );
  return contextId;
}

/**
 * The push config's format and credentials (the URL is the ask's callbackUrl). Credentials become
 * header values, so anything but printable ASCII is refused here rather than failing every send.
 */
function pushConfig(params: SendMessageRequest, version: string): PushConfig {
  const config = params.configuration?.taskPushNotificationConfig;
  const token = config?.token ?? '';
  const auth = config?.authentication;
  const field = 'configuration.taskPushNotificationConfig';
  if (token !== '' && !HEADER_VALUE.test(token))
    throw new RequestMalformedError(`${field}.token: use printable ASCII only, at most 1000 characters`);
  let authorization: string | undefined;
  if (auth && (auth.scheme !== '' || auth.credentials !== '')) {
    if (!AUTH_SCHEME.test(auth.scheme))
      throw new RequestMalformedError(`${field}.authentication.scheme: an HTTP authentication scheme such as Bearer`);
    if (!HEADER_VALUE.test(auth.credentials))
      throw new RequestMalformedError(
        `${field}.authentication.credentials: required with a scheme; printable ASCII only, at most 1000 characters`,
      );
    authorization = `${auth.scheme} ${auth.credentials}`;
  }
  return {
    format: version === '0.3' ? 'a2a-0.3' : 'a2a-1.0',
    ...(token !== '' ? { token } : {}),
    ...(authorization ? { authorization } : {}),
  };
}

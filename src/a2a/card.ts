import { AgentCard } from '@a2a-js/sdk';
import { DATA_PART_SHAPE } from './ask-input.js';
import { CHANNEL_DISPLAY_LIST } from '../channels/registry.js';

/** What the agent card says about this askgate. */
export interface CardOptions {
  /** Absolute URL of the JSON-RPC endpoint (`…/a2a`). */
  url: string;
  /** askgate's version (package.json). */
  version: string;
  /** True when an API token guards the endpoint: the card then names the bearer scheme. */
  bearer: boolean;
  /** True when result webhooks are configured. */
  pushNotifications: boolean;
}

const NAME = 'askgate';
const DESCRIPTION = `Asks a person 1–3 structured questions over chat (${CHANNEL_DISPLAY_LIST} or the askgate web console) and returns their answer: a choice among 2–4 options, or a typed answer (free text, a number, a date, a time, a date and time, an email address, a link) checked against your constraints; or asks a person to authorize one exact action (approve, reject with a reason, request changes, or edit its arguments), bound to the action by its hash.`;
const SKILL = {
  id: 'ask_user',
  name: 'Ask a person',
  description: `Send a message with one data part ${DATA_PART_SHAPE}, the body of askgate's POST /v1/asks: questions (1–3), each {id?, header?, question} and either a choice, options: [{label, description?}] (2–4) with multiSelect?, or a typed kind instead of options when the answer is a number, a date, an address, a link or free text: kind "text" (minLength?, maxLength? up to 4000, pattern? RE2 matched against the whole answer), "number" (min?, max?, integer?, unit?), "date" (min?, max? "YYYY-MM-DD"), "time" (min?, max? "HH:MM"), "datetime" (min?, max? ISO 8601 with an offset), "email" or "url"; to: where to ask, e.g. {channel: "telegram", chat: "123"} (default ASKGATE_DEFAULT_TO), runId (default: the message's contextId), timeoutSeconds, locale, timeZone and the other fields of POST /v1/asks. The person's typed reply is read in their language and checked; they are asked again until it fits. The task is working while the person decides; it ends completed with a data part {status: "answered", answers: {<question id>: [<label, own words, or the typed answer as text>]}, values: {<question id>: <the answer with its JSON type: a number, "YYYY-MM-DD", "HH:MM", ISO 8601, the text, address or URL, or a choice's labels>}, raw?: {<question id>: <what the person wrote, where it differs>}, answeredBy, answeredAt} or {status: "no_answer", reason: "timeout" | "skipped" | "superseded" | "undelivered", at} (proceed with your best judgment), or canceled.`,
  tags: ['human-in-the-loop', 'questions', 'approval', 'chat', 'typed-answers'],
  examples: [
    '{"questions":[{"id":"env","header":"Deploy","question":"Where should I deploy?","options":[{"label":"Staging (Recommended)"},{"label":"Production"}]}]}',
    '{"questions":[{"id":"replicas","question":"How many replicas?","kind":"number","min":1,"max":10,"integer":true}]}',
    '{"questions":[{"id":"day","question":"Which day should the report cover?","kind":"date","max":"2026-12-31"}]}',
  ],
};
const APPROVAL_SKILL = {
  id: 'request_approval',
  name: 'Request approval of an action',
  description: `Send a message with one data part {approval, to?, runId?, timeoutSeconds?, onTimeout?: {decision: "approve" | "reject"}, agree?, locale?}, the body of askgate's POST /v1/asks with approval instead of questions: approval is {action (the exact tool or action name), arguments (the exact JSON object you will run), summary? (one sentence shown first), preview? (text shown monospace, e.g. a diff), decisions? (a subset of "approve", "reject", "request_changes", "edit"; default the first three), argumentsSchema? (a JSON Schema edited arguments must satisfy)}. The person sees the action, its arguments and the first 8 hex digits of its hash: sha256 over the RFC 8785 canonical JSON of {action, arguments}. The task is working while the person decides; it ends completed with a data part {status: "answered", decision: "approve" | "edit" | "reject" | "request_changes", reason?: <the person's words>, arguments: <the arguments to run: the edited ones after edit>, actionHash, effectiveHash: <"sha256:" + the hash of {action, arguments} to run>, answeredBy, answeredAt}: run the action only on approve or edit, only with those arguments, and check that their hash is effectiveHash. {status: "no_answer", reason, decision?: <onTimeout.decision, stated, never given>}: nobody approved, do not run it.`,
  tags: ['human-in-the-loop', 'approval', 'authorization', 'chat'],
  examples: [
    '{"approval":{"action":"send_email","arguments":{"to":"finance@example.com","subject":"Q3 report"},"summary":"Send the Q3 report to finance","decisions":["approve","reject","request_changes","edit"]}}',
  ],
};
const INPUT_MODES = ['application/json'];
const OUTPUT_MODES = ['application/json', 'text/plain'];
const SCHEME = 'bearer';
const SCHEME_DESCRIPTION = 'The askgate API token (ASKGATE_API_TOKEN), as for /v1: Authorization: Bearer <token>';

/**
 * The A2A v1.0 card: one JSON-RPC endpoint offered as protocol 1.0 and 0.3 (the v0.3 method
 * names `message/send`, `tasks/get`… are served there too), streaming on, push notifications
 * when webhooks are configured, and the bearer scheme when a token is set.
 */
export function agentCard(opts: CardOptions): AgentCard {
  return AgentCard.fromJSON({
    name: NAME,
    description: DESCRIPTION,
    version: opts.version,
    supportedInterfaces: [
      { url: opts.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: opts.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
    capabilities: { streaming: true, pushNotifications: opts.pushNotifications, extendedAgentCard: false },
    ...(opts.bearer && {
      securitySchemes: { [SCHEME]: { httpAuthSecurityScheme: { scheme: 'Bearer', description: SCHEME_DESCRIPTION } } },
      securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
    }),
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [SKILL, APPROVAL_SKILL].map((skill) => ({ ...skill, inputModes: INPUT_MODES, outputModes: OUTPUT_MODES })),
  });
}

/** The card as JSON for an A2A 1.0 client. */
export function agentCardJson(opts: CardOptions): unknown {
  return AgentCard.toJSON(agentCard(opts));
}

/**
 * The card as a v0.3 client reads it (`url`, `protocolVersion`, `preferredTransport`, the
 * JSON-schema security scheme), with the 1.0 interfaces embedded as the SDK's compatibility
 * layer does, so a 1.0 client that sends no `A2A-Version` still finds them.
 */
export function legacyAgentCardJson(opts: CardOptions): unknown {
  return {
    name: NAME,
    description: DESCRIPTION,
    version: opts.version,
    url: opts.url,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true, pushNotifications: opts.pushNotifications },
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [SKILL, APPROVAL_SKILL].map((skill) => ({ ...skill, inputModes: INPUT_MODES, outputModes: OUTPUT_MODES })),
    ...(opts.bearer && {
      securitySchemes: { [SCHEME]: { type: 'http', scheme: 'bearer', description: SCHEME_DESCRIPTION } },
      security: [{ [SCHEME]: [] }],
    }),
    supportedInterfaces: [
      { url: opts.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: opts.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ],
  };
}

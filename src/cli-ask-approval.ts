// The approval of `askgate ask` (instead of questions): `--approval-action send_email
// --approval-arguments '{"to": "finance@example.com"}'`, optionally a summary, a preview read from a
// file, the decisions offered (`--decision`, repeated), a JSON Schema for edits and the decision a
// timeout states. Values are sent as given and checked by askgate (a 400 names the field).
import { readFileSync } from 'node:fs';
import { UsageError } from './cli-ask-policy.js';

/** Quotes a user-given value for an error message (cli-ask.ts passes its `shown`). */
type Show = (value: string) => string;

/** The `parseArgs` options of the approval flags. */
export const APPROVAL_OPTIONS = {
  'approval-action': { type: 'string' },
  'approval-arguments': { type: 'string' },
  'approval-summary': { type: 'string' },
  'approval-preview-file': { type: 'string' },
  'approval-schema': { type: 'string' },
  'requested-by': { type: 'string' },
  decision: { type: 'string', multiple: true },
  'timeout-decision': { type: 'string' },
} as const;

/** The approval flags given once at most. */
export const APPROVAL_SINGLE = [
  'approval-action',
  'approval-arguments',
  'approval-summary',
  'approval-preview-file',
  'approval-schema',
  'requested-by',
  'timeout-decision',
] as const;

/** The approval flags as `parseArgs` returns them. */
export interface ApprovalFlags {
  'approval-action'?: string;
  'approval-arguments'?: string;
  'approval-summary'?: string;
  'approval-preview-file'?: string;
  'approval-schema'?: string;
  'requested-by'?: string;
  decision?: string[];
  'timeout-decision'?: string;
}

/** A JSON object from flag `flag`, or a UsageError naming it. */
function jsonObject(flag: string, text: string, show: Show): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`--${flag} must be a JSON object, not ${show(text)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--${flag} must be a JSON object, not ${show(text)}`);
  return value as Record<string, unknown>;
}

/**
 * The body fields of an approval ask (`approval`, and `onTimeout` with `--timeout-decision`), or
 * undefined when no approval flag is given. A `--decision` or another approval flag without
 * `--approval-action` is a UsageError, as is `--approval-action` without `--approval-arguments`.
 */
export function approvalFromFlags(flags: ApprovalFlags, show: Show): Record<string, unknown> | undefined {
  const given = (Object.keys(APPROVAL_OPTIONS) as (keyof ApprovalFlags)[]).filter((f) => flags[f] !== undefined);
  if (given.length === 0) return undefined;
  const action = flags['approval-action'];
  if (action === undefined) throw new UsageError(`--${given[0]} goes with --approval-action`);
  const args = flags['approval-arguments'];
  if (args === undefined) throw new UsageError('--approval-action needs --approval-arguments (a JSON object)');
  const approval: Record<string, unknown> = { action, arguments: jsonObject('approval-arguments', args, show) };
  if (flags['approval-summary'] !== undefined) approval.summary = flags['approval-summary'];
  const previewFile = flags['approval-preview-file'];
  if (previewFile !== undefined) {
    try {
      approval.preview = readFileSync(previewFile, 'utf8');
    } catch (error) {
      throw new UsageError(`--approval-preview-file: cannot read ${show(previewFile)} (${(error as Error).message})`);
    }
  }
  if (flags.decision) approval.decisions = flags.decision;
  if (flags['approval-schema'] !== undefined)
    approval.argumentsSchema = jsonObject('approval-schema', flags['approval-schema'], show);
  const requester = flags['requested-by'];
  if (requester !== undefined) {
    // <channel>:<userId>: the person who asked for the action (their own decision is refused).
    const at = requester.indexOf(':');
    if (at < 1 || at === requester.length - 1)
      throw new UsageError(`--requested-by must be <channel>:<userId>, not ${show(requester)}`);
    approval.requestedBy = { channel: requester.slice(0, at), userId: requester.slice(at + 1) };
  }
  const onTimeout = flags['timeout-decision'];
  if (onTimeout !== undefined && onTimeout !== 'approve' && onTimeout !== 'reject')
    throw new UsageError(`--timeout-decision must be approve or reject, not ${show(onTimeout)}`);
  return { approval, ...(onTimeout ? { onTimeout: { decision: onTimeout } } : {}) };
}

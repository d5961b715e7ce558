// An approval request and how it is stored: the exact action (name and arguments) a person is asked
// to authorize, what they see first, what they may decide, what edited arguments must satisfy.
import { z } from 'zod';
import { shownText, singleLine } from '../shown-text.js';
import { DECISIONS, DEFAULT_DECISIONS } from './decisions.js';

/** Largest canonical JSON of `arguments` (and of an edit), and of a `preview`, in UTF-8 bytes. */
export const APPROVAL_TEXT_MAX_BYTES = 32 * 1024;

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** A JSON object (not an array, not null), within the size limit as JSON. */
export const ArgumentsSchema = z
  .record(z.string(), z.unknown(), 'must be a JSON object')
  .refine((args) => utf8Bytes(JSON.stringify(args)) <= APPROVAL_TEXT_MAX_BYTES, {
    message: `must be at most ${APPROVAL_TEXT_MAX_BYTES} bytes as JSON`,
  });

/** The person who asked for the action: their own decision is refused. */
export const RequestedBySchema = z
  .object({ channel: z.string().min(1).max(32), userId: z.string().min(1).max(128) })
  .strict();

/** The `approval` of `POST /v1/asks` (instead of `questions`). */
export const ApprovalRequestSchema = z
  .object({
    action: singleLine(100),
    arguments: ArgumentsSchema,
    summary: shownText(300).optional(),
    // Counted in bytes only (characters are never more than bytes).
    preview: shownText(4 * APPROVAL_TEXT_MAX_BYTES, { multiline: true })
      .refine((p) => utf8Bytes(p) <= APPROVAL_TEXT_MAX_BYTES, `must be at most ${APPROVAL_TEXT_MAX_BYTES} bytes`)
      .optional(),
    decisions: z
      .array(z.enum(DECISIONS, `must be one of: ${DECISIONS.join(', ')}`))
      .min(1, 'offer at least one decision')
      .max(DECISIONS.length)
      .refine((d) => new Set(d).size === d.length, 'must not repeat a decision')
      .refine((d) => d.includes('approve'), 'must offer approve')
      .optional(),
    /** A JSON Schema the edited arguments must satisfy (compiled when the ask is created). */
    argumentsSchema: z.record(z.string(), z.unknown(), 'must be a JSON Schema object').optional(),
    requestedBy: RequestedBySchema.optional(),
  })
  .strict();

/** A validated approval request. */
export type ApprovalRequest = z.output<typeof ApprovalRequestSchema>;

/** An approval as stored: the request with its decisions filled in and the action's hash. */
export const StoredApprovalSchema = z.object({
  action: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  summary: z.string().optional(),
  preview: z.string().optional(),
  decisions: z.array(z.enum(DECISIONS)),
  argumentsSchema: z.record(z.string(), z.unknown()).optional(),
  requestedBy: z.object({ channel: z.string(), userId: z.string() }).optional(),
  /** `sha256:<hex>` of the RFC 8785 canonical JSON of `{action, arguments}`. */
  actionHash: z.string(),
});

/** An approval as stored. */
export type StoredApproval = z.output<typeof StoredApprovalSchema>;

/** The stored approval of a request, with the hash the shell computed. */
export function storedApproval(request: ApprovalRequest, actionHash: string): StoredApproval {
  return { ...request, decisions: request.decisions ?? [...DEFAULT_DECISIONS], actionHash };
}

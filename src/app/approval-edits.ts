// Edited arguments are checked against the approval's `argumentsSchema` (JSON Schema, with ajv: the
// well-kept validator fastify and the MCP SDK use). Schemas are compiled once per schema text and
// kept in a bounded cache; a schema ajv cannot compile is refused when the ask is created.
import { Ajv, type ValidateFunction } from 'ajv';
import type { Issue } from '../core/errors.js';
import { ArgumentsSchema, type StoredApproval } from '../core/approval/approval-schema.js';
import { actionHash } from './action-hash.js';

const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** The compiled schema, or the reason it does not compile. */
function compile(schema: Readonly<Record<string, unknown>>): ValidateFunction | string {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  try {
    const validate = ajv.compile(schema);
    if (compiled.size >= 200) compiled.clear();
    compiled.set(key, validate);
    return validate;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why an `argumentsSchema` is refused (it does not compile), or null. */
export function schemaProblem(schema: Readonly<Record<string, unknown>>): Issue | null {
  const validate = compile(schema);
  return typeof validate === 'string'
    ? { path: ['approval', 'argumentsSchema'], message: `is not a JSON Schema ajv can compile: ${validate}` }
    : null;
}

/** Why edited arguments are refused (not an object within the size limit, or against the schema), or null. */
export function editProblem(approval: StoredApproval, args: unknown): Issue | null {
  const shape = ArgumentsSchema.safeParse(args);
  if (!shape.success) return { path: ['arguments'], message: shape.error.issues[0]!.message };
  if (!approval.argumentsSchema) return null;
  const validate = compile(approval.argumentsSchema);
  if (typeof validate === 'string') return { path: ['arguments'], message: 'the approval has no usable schema' };
  if (validate(args)) return null;
  const first = validate.errors?.[0];
  const where = first?.instancePath ? `${first.instancePath.slice(1).replace(/\//g, '.')} ` : '';
  return { path: ['arguments'], message: `does not match the schema: ${where}${first?.message ?? 'invalid'}` };
}

/**
 * An edit as a `decide` event takes it: the arguments checked against the approval's schema and
 * hashed (core does neither), or why they are refused. Every surface that takes an edit (the API,
 * a reply, a channel's form) goes through here.
 */
export function checkedEdit(
  approval: StoredApproval,
  args: unknown,
): { ok: true; arguments: Record<string, unknown>; effectiveHash: string } | { ok: false; problem: Issue } {
  const problem = editProblem(approval, args);
  if (problem) return { ok: false, problem };
  const checked = args as Record<string, unknown>;
  return { ok: true, arguments: checked, effectiveHash: actionHash(approval.action, checked) };
}

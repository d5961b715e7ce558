import { ClientRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** The v1 SDK's schema of each request a client may send, by method. */
const SCHEMAS = new Map<string, (typeof ClientRequestSchema.options)[number]>(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/**
 * Why the params of a 2025-era request do not fit its method, or null (also for a method the
 * SDK does not know: it answers that itself). The v1 SDK checks params inside its request
 * handlers and answers a mismatch (`tools/call` with a numeric `name`) as an internal error
 * (-32603); checked here first, it is the invalid params (-32602) it is.
 */
export function paramsProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== 'string' || id === undefined) return null;
  const schema = SCHEMAS.get(method);
  const checked = schema?.safeParse(body);
  if (!checked || checked.success) return null;
  return checked.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`)
    .join('; ');
}

/** A JSON response: status, parsed body and headers. */
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** A tiny JSON client for askgate's API. */
export function client(base: string, token?: string) {
  const call = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse<T>> => {
    const h: Record<string, string> = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const response = await fetch(base + path, {
      method,
      headers: h,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // non-JSON bodies (metrics) stay text
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  };
  return {
    call,
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body ?? {}, headers),
    del: <T = any>(path: string) => call<T>('DELETE', path),
  };
}

/** A valid single-question ask body. */
export function askBody(runId: string, extra: Record<string, unknown> = {}) {
  return {
    runId,
    questions: [
      {
        id: 'env',
        header: 'Deploy',
        question: 'Where should I deploy?',
        options: [{ label: 'Staging' }, { label: 'Production', description: 'live traffic' }],
      },
    ],
    ...extra,
  };
}

/** Polls `fn` until it returns a truthy value or `ms` passes. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  ms = 10_000,
  every = 25,
): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`condition not met within ${ms} ms${last ? `: ${String(last)}` : ''}`);
}

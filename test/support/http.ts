import { openApiValidator } from './openapi-validator';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A thin fetch wrapper: JSON in, JSON (when there is any) out. */
export async function request<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { json?: unknown; body?: string | Buffer | FormData; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | FormData | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // Every answer must be what openapi.json says; a mismatch fails the test that received it.
  openApiValidator().assert({ method, path, status: response.status, headers: response.headers, body: parsed, text });
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Bound to one app: `api.get('/api/v2/version')`. */
export function client(baseUrl: string) {
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => request<T>(baseUrl, 'GET', path, { headers }),
    delete: <T = any>(path: string, headers?: Record<string, string>) => request<T>(baseUrl, 'DELETE', path, { headers }),
    post: <T = any>(path: string, json: unknown, headers?: Record<string, string>) => request<T>(baseUrl, 'POST', path, { json, headers }),
    raw: (method: string, path: string, options: { body?: string | Buffer | FormData; headers?: Record<string, string> }) => request(baseUrl, method, path, options),
    createPush: async (push: Record<string, unknown>, headers?: Record<string, string>) => {
      const result = await request(baseUrl, 'POST', '/api/v2/pushes', { json: { push }, headers });
      if (result.status !== 201) throw new Error(`create failed: ${result.status} ${result.text}`);
      return result.body as { url_token: string } & Record<string, unknown>;
    },
  };
}

export type ApiClient = ReturnType<typeof client>;

import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
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
  return { status: response.status, headers: response.headers, body: checkedBody(method, path, response.status, response.headers, text) as T, text };
}

/** An answer's JSON body (undefined when there is none), after checking the answer against openapi.json: a mismatch fails the test that received it. */
function checkedBody(method: string, path: string, status: number, headers: Headers, text: string): unknown {
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  openApiValidator().assert({ method, path, status, headers, body: parsed, text });
  return parsed;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

/**
 * A request sent byte for byte as a replayed client sends it (node:http: any header order, a body
 * on a GET), its answer checked against openapi.json unless `checked` is false (an answer that did
 * not come from the service).
 */
export async function rawRequest(url: URL, options: RequestOptions, body?: Buffer | string, checked = true): Promise<RawAnswer> {
  const method = options.method ?? 'GET';
  const path = `${url.pathname}${url.search}`;
  const { res, text } = await new Promise<{ res: import('node:http').IncomingMessage; text: string }>((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, ...options }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ res: answer, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
  const status = res.statusCode ?? 0;
  const headers = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
  const parsed = checked ? checkedBody(method, path, status, headers, text) : parseJson(text);
  return { status, headers: res.headers, text, body: parsed };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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

import { type ClientRequest, request as httpRequest } from 'node:http';
import { openApiValidator } from './openapi-validator';

export interface HeldAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface HeldRequest {
  /** The answer, as soon as the server gives one, whether or not the body was all sent. */
  answer: Promise<HeldAnswer>;
  /** Resolves once the server has taken the request in (sent with `Expect: 100-continue`). */
  admitted: Promise<void>;
  write(chunk: string | Buffer): void;
  end(chunk?: string | Buffer): void;
  destroy(): void;
}

/**
 * A POST whose body the test sends when it chooses: the headers go at once (they must declare the
 * body's length), the body only as written. With `Expect: 100-continue` Node's server answers
 * "100 Continue" as it hands the request to the app, so `admitted` tells when the app has it.
 * The answer is held to openapi.json, as every e2e answer is.
 */
export function holdRequest(baseUrl: string, path: string, headers: Record<string, string>): HeldRequest {
  const req: ClientRequest = httpRequest(`${baseUrl}${path}`, { method: 'POST', headers: { expect: '100-continue', ...headers } });
  const admitted = new Promise<void>((resolve) => req.once('continue', resolve));
  const answer = new Promise<HeldAnswer>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (data: Buffer) => (text += data.toString()));
      res.once('end', () => {
        try {
          const body = text === '' ? undefined : (JSON.parse(text) as unknown);
          const fetchHeaders = new Headers(Object.entries(res.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
          openApiValidator().assert({ method: 'POST', path, status: res.statusCode ?? 0, headers: fetchHeaders, body, text });
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.once('error', reject);
  });
  // Settled by the test or not at all (a request it destroys): never an unhandled rejection.
  answer.catch(() => undefined);
  req.flushHeaders();
  return {
    answer,
    admitted,
    write: (chunk) => void req.write(chunk),
    end: (chunk) => void req.end(chunk),
    destroy: () => req.destroy(),
  };
}

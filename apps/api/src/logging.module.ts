import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';
import type { Settings } from '@app/config';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Keys whose values never reach a log, at any depth: secrets, credentials, bodies, and driver
 * errors' SQL and parameters (which can quote them).
 */
const SECRET_KEYS = new Set([
  'payload',
  'note',
  'passphrase',
  'password',
  'token',
  'api_token',
  'url_token',
  'access_token',
  'authorization',
  'cookie',
  'set-cookie',
  'x-user-token',
  'x-passphrase',
  'body',
  'query',
  'sql',
  'parameters',
  'driverError',
]);
/** Deeper than anything the service logs; whatever lies below is censored whole, unread. */
const MAX_LOG_DEPTH = 6;
const CENSORED = '[redacted]';
/** Left to their serializers (which pino applies after the censor): they keep only safe fields. */
const SERIALIZED_KEYS: ReadonlySet<string> = new Set(['req', 'res', 'err']);

/**
 * Belt and braces: the serializers below already keep only safe fields of requests, responses and
 * errors, but an object logged whole anywhere else still cannot leak a secret. Copy-on-write, so
 * the usual small log object (no secret key) costs one walk and no allocation.
 */
function censor<T>(value: T, depth: number, leave?: ReadonlySet<string>): T {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_LOG_DEPTH) return CENSORED as T;
  const source = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    if (leave?.has(key)) continue;
    const child = source[key];
    const safe = SECRET_KEYS.has(key) ? CENSORED : censor(child, depth + 1);
    if (safe === child) continue;
    copy ??= Array.isArray(source) ? ([...source] as unknown as Record<string, unknown>) : { ...source };
    copy[key] = safe;
  }
  return (copy ?? value) as T;
}

const censorLogObject = (object: Record<string, unknown>) => censor(object, 0, SERIALIZED_KEYS);

/** Errors by type and code only: messages can quote bodies (JSON parse errors) or SQL parameters. */
export function serializeError(error: unknown): { type: string; code?: string } {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return { type: typeof name === 'string' ? name : typeof error, ...(typeof code === 'string' ? { code } : {}) };
}

/** Requests by id, method and masked URL; responses by status; errors by type and code. */
const serializers = {
  // Given the raw request (wrapSerializers is off): Express rewrites `url` while routing, never `originalUrl`.
  req: (req: { id: string; method: string; url: string; originalUrl?: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.originalUrl ?? req.url) }),
  res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
  err: serializeError,
};

/**
 * What keeps secrets out of every log line, for the app's logger and for tests: the serializers,
 * and the censor over everything else a log call is given. (Pino does not pass child loggers'
 * bindings through it; the only child the service makes is the request logger, bound to `req`.)
 */
export const LOG_SAFETY = { serializers, formatters: { log: censorLogObject } };

/**
 * Keeps secrets out of request logs: the query string (which may hold a passphrase) is dropped
 * and push tokens in paths are masked. Headers are not logged at all.
 */
export function redactUrl(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  // Routes match case-insensitively, so the masking must too; only the exact list names are kept.
  return path.replace(/\/(pushes|p)\/(?!(?:active|expired)(?:\/|$))[^/]+/gi, '/$1/:url_token');
}

/**
 * The request's id: the caller's X-Request-Id when it is sane, else a new UUID; echoed in the
 * response. Idempotent, so it can run before body parsing (whose errors are answered early) and
 * again in the logger.
 */
export function requestId(request: IncomingMessage & { id?: unknown }, response: ServerResponse): string {
  if (typeof request.id === 'string') return request.id;
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  request.id = id;
  response.setHeader('X-Request-Id', id);
  return id;
}

@Module({})
export class LoggingModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: LoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: settings.logLevel,
            genReqId: requestId,
            ...LOG_SAFETY,
            // The serializers get the request and response themselves, not pino's full copies of them.
            wrapSerializers: false,
            customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
          },
        }),
      ],
    };
  }
}

import { DynamicModule, LoggerService, Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import pino, { type Level, type Logger } from 'pino';
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
function serializeError(error: unknown): { type: string; code?: string } {
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
 * and push and request tokens and download links in paths are masked. Headers are not logged at all.
 */
export function redactUrl(url: string | undefined): string {
  const path = (url ?? '').split('?')[0];
  // Routes match case-insensitively, so the masking must too; only the exact list names are kept.
  // `/f/` and `/r/` are API v1's prefixes (and the legacy links'); `.json` is API v1's and the API's suffix.
  return path
    .replace(/\/(pushes|p|f|r)\/(?!(?:active|expired)(?:\.json)?(?:\/|$))[^/]+?(\.json)?(?=\/|$)/gi, '/$1/:url_token$2')
    // Secret requests (the API's and the responder's page), their lists' names kept.
    .replace(/\/(requests)\/(?!(?:active|open|ready|closed)(?:\.json)?(?:\/|$))[^/]+?(\.json)?(?=\/|$)/gi, '/$1/:url_token$2')
    .replace(/\/(files)\/[^/]+/gi, '/$1/:link');
}

/**
 * The request's id: the caller's X-Request-Id when it is sane, else a new UUID; echoed in the
 * response. Set once per request, by the first middleware (http-policies.ts).
 */
export function requestId(request: IncomingMessage & { id?: unknown }, response: ServerResponse): string {
  const given = request.headers['x-request-id'];
  const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  request.id = id;
  response.setHeader('X-Request-Id', id);
  return id;
}

/**
 * The process's one pino logger (JSON lines on stdout, with LOG_SAFETY), serving both as Nest's
 * LoggerService, for the app's own lines with their `context`, and as the request log: one line
 * per request once its answer has gone or its client has gone away.
 */
export class AppLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  readonly log = (message: unknown, ...rest: unknown[]): void => this.write('info', message, rest);
  readonly error = (message: unknown, ...rest: unknown[]): void => this.write('error', message, rest);
  readonly warn = (message: unknown, ...rest: unknown[]): void => this.write('warn', message, rest);
  readonly debug = (message: unknown, ...rest: unknown[]): void => this.write('debug', message, rest);
  readonly verbose = (message: unknown, ...rest: unknown[]): void => this.write('trace', message, rest);
  readonly fatal = (message: unknown, ...rest: unknown[]): void => this.write('fatal', message, rest);

  request(req: IncomingMessage, res: ServerResponse, seconds: number): void {
    const level = res.statusCode >= 500 ? 'error' : 'info';
    if (!this.pino.isLevelEnabled(level)) return;
    this.pino[level]({ req, res, responseTime: Math.round(seconds * 1000) }, res.writableFinished ? 'request completed' : 'request aborted');
  }

  /**
   * Nest passes the context last (`log(text, 'Health')`, `error(text, stack, 'Health')`). Stack
   * traces are not logged, and errors only by type and code, as everywhere else.
   */
  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const last = rest[rest.length - 1];
    const context = typeof last === 'string' ? last : undefined;
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.name);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ context, ...message });
    else this.pino[level]({ context }, String(message));
  }
}

/** Provides the AppLogger; main.ts and the tests hand it to Nest (app.useLogger) in configureApp. */
@Module({})
export class LoggingModule {
  static forRoot(settings: Settings): DynamicModule {
    const logger = new AppLogger(pino({ level: settings.logLevel, ...LOG_SAFETY }));
    return { module: LoggingModule, providers: [{ provide: AppLogger, useValue: logger }], exports: [AppLogger] };
  }
}

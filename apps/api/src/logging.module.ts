import { DynamicModule, Module } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';
import type { Settings } from '@app/config';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Fields that hold secrets (or driver errors that quote them) wherever they sit in a log object. */
const SECRET_FIELDS = ['payload', 'note', 'passphrase', 'password', 'token', 'api_token', 'url_token', 'access_token', 'parameters', 'driverError'];
/**
 * Belt and braces: the serializers below already keep only safe fields, but anything that
 * later logs a request, a response or an error object whole still cannot leak these.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-user-token"]',
  'req.headers["x-passphrase"]',
  'req.query.passphrase',
  'req.query.access_token',
  'req.body',
  'res.headers["set-cookie"]',
  'res.body',
  'err.query',
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`, `*.*.*.${field}`]),
];

/** Errors by type and code only: messages can quote bodies (JSON parse errors) or SQL parameters. */
export function serializeError(error: unknown): { type: string; code?: string } {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return { type: typeof name === 'string' ? name : typeof error, ...(typeof code === 'string' ? { code } : {}) };
}

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
            serializers: {
              req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: redactUrl(req.url) }),
              res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
              err: serializeError,
            },
            redact: { paths: REDACT_PATHS, censor: '[redacted]' },
            customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
          },
        }),
      ],
    };
  }
}

import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type NextFunction, type Request, type Response } from 'express';
import { apiV1Policies } from '@app/api-v1';
import { formatBytes, proxyTrust, type Settings } from '@app/config';
import { configureCors, configureHttpPolicies, requireHttps } from './http-policies';
import { routeJsonPaths } from './json-paths';
import { AppLogger } from './logging.module';
import { setupOpenApi } from './openapi';
import { parseScalarQuery } from './query-string';

/** Room for a 1 MiB-character payload in the worst JSON escaping, plus the other fields. */
const BODY_LIMIT = '16mb';
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;
/** The routes that create pushes: v2's, and API v1's (whose JSON may carry base64 files too). */
const CREATE_PATHS = new Set(['/api/v2/pushes', '/p.json', '/f.json', '/r.json']);
/** A push has about ten fields: a form body never needs more. */
const FORM_PARAMETER_LIMIT = 100;

/**
 * HTTP concerns that live outside Nest's module graph; shared by main.ts and the e2e tests so
 * both run the same stack.
 */
export function configureApp(app: NestExpressApplication, settings: Settings): void {
  app.useLogger(app.get(AppLogger));
  app.disable('x-powered-by');
  // Answers are per-request JSON, mostly secrets marked no-store: hashing each body for an ETag is wasted work.
  app.set('etag', false);
  app.set('query parser', parseScalarQuery);
  // X-Forwarded-* are believed only from the configured proxies.
  app.set('trust proxy', proxyTrust(settings.trustedProxies));
  // First, so that every answer carries X-Request-Id and the security headers, even a body-parser failure's.
  configureHttpPolicies(app);
  if (settings.forceSsl) app.use(requireHttps);
  app.use(routeJsonPaths);
  // Before CORS_ORIGINS' policy: any origin may POST /p.json, whatever that setting says.
  app.use(apiV1Policies(settings));
  configureCors(app, settings);
  app.use(bodyReader(settings.files.maxJsonBodyBytes));
  setupOpenApi(app);
}

/**
 * JSON and form bodies, in one middleware that requests without a body (most of them) pass
 * through at once and that picks the one parser a body's type needs. A create that carries
 * credentials may send base64 files in JSON, so its JSON body may be as large as
 * PWP__FILES__MAX_JSON_BODY_SIZE; anonymous creates cannot attach files and keep the usual limit.
 * Multipart bodies, which carry files as streams, are read by the create route itself, after
 * authentication (see @app/pushes).
 */
function bodyReader(maxJsonBodyBytes: number) {
  // The type is checked here, once: the parsers take whatever they are given.
  const json = express.json({ limit: BODY_LIMIT_BYTES, type: ANY_TYPE });
  const jsonWithFiles = express.json({ limit: Math.max(maxJsonBodyBytes, BODY_LIMIT_BYTES), type: ANY_TYPE });
  const form = express.urlencoded({ extended: true, limit: BODY_LIMIT, parameterLimit: FORM_PARAMETER_LIMIT, type: ANY_TYPE });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return next();
    // No route reads the body of these; clients send one anyway (PassPushPosh: JSON `null` with every GET and DELETE).
    if (UNREAD_BODY_METHODS.has(req.method)) return next();
    const type = req.is(BODY_TYPES);
    if (!type) return next();
    const parser = type === FORM_TYPE ? form : req.method === 'POST' && CREATE_PATHS.has(req.path) && hasCredentials(req) ? jsonWithFiles : json;
    parser(req, res, (error?: unknown) => (error ? answerBodyError(error, res, next) : rejectDeepBodies(req, res, next)));
  };
}

const UNREAD_BODY_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);
const FORM_TYPE = 'application/x-www-form-urlencoded';
const BODY_TYPES = ['application/json', FORM_TYPE];
const ANY_TYPE = () => true;

/** Whether the request says who is calling; the guard checks the credential later, as for any request. */
const hasCredentials = (req: Request): boolean => req.headers.authorization !== undefined || req.headers['x-user-token'] !== undefined;

/** Far deeper than any valid request; deeper bodies would exhaust the stack of the validation layers. */
const MAX_BODY_DEPTH = 32;

function nestedDeeperThan(body: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[body, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(value)) pending.push([child, depth + 1]);
  }
  return false;
}

function rejectDeepBodies(req: Request, res: Response, next: NextFunction): void {
  if (nestedDeeperThan(req.body, MAX_BODY_DEPTH)) {
    res.status(400).json({ error: `Malformed request body: nested more than ${MAX_BODY_DEPTH} levels deep.` });
    return;
  }
  next();
}

/** What each body-parser failure tells the client; the parser's own messages can quote the body. */
const BODY_ERRORS = new Map<string | undefined, [status: number, message: string]>([
  ['parameters.too.many', [413, `Request body has too many form parameters (limit ${FORM_PARAMETER_LIMIT}).`]],
  ['querystring.parse.rangeError', [400, 'Malformed request body: form parameters nested too deeply.']],
  ['charset.unsupported', [400, 'Malformed request body: unsupported charset (send UTF-8).']],
  ['encoding.unsupported', [400, 'Malformed request body: unsupported Content-Encoding (send identity, gzip, deflate or br).']],
]);
const MALFORMED: [number, string] = [400, 'Malformed request body: expected valid JSON.'];

/** Body-parser failures answer in the contract's JSON error shape instead of Express's HTML page. */
function answerBodyError(failure: unknown, res: Response, next: NextFunction): void {
  const error = failure as { status?: number; type?: string; limit?: number };
  const clientError = error.status !== undefined && error.status >= 400 && error.status < 500;
  const tooLarge: [number, string] | undefined = error.type === 'entity.too.large' ? [413, `Request body is too large (limit ${describeLimit(error.limit)}).`] : undefined;
  const answer = tooLarge ?? BODY_ERRORS.get(error.type) ?? (clientError ? MALFORMED : undefined);
  if (res.headersSent || answer === undefined) return next(error);
  const [status, message] = answer;
  res.status(status).json({ error: message });
}

const describeLimit = (bytes: number | undefined): string => (bytes === undefined || bytes === BODY_LIMIT_BYTES ? BODY_LIMIT : formatBytes(bytes));

import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Settings } from '@app/config';
import { Metrics, recordRequest } from '@app/metrics';
import { AppLogger, requestId } from './logging.module';
import { OPENAPI_UI_PATH } from './openapi';

/** The orchestrator's probes and Prometheus call the pod over plain HTTP, FORCE_SSL or not. */
const PLAIN_HTTP_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Swagger UI's path prefix: its page, its assets and the JSON document. */
const DOCS_PATH = new RegExp(`^/${OPENAPI_UI_PATH}(?:[/.?]|$)`);

/**
 * The browser features no page or answer of this service uses, all turned off (a script injected
 * somehow gets no camera, microphone, location, payment, USB...); only writing to the clipboard,
 * for the copy buttons, and only for this origin.
 */
export const PERMISSIONS_POLICY = [
  'accelerometer=()', 'autoplay=()', 'bluetooth=()', 'browsing-topics=()', 'camera=()', 'clipboard-read=()', 'clipboard-write=(self)',
  'display-capture=()', 'encrypted-media=()', 'fullscreen=()', 'gamepad=()', 'geolocation=()', 'gyroscope=()', 'hid=()',
  'idle-detection=()', 'local-fonts=()', 'magnetometer=()', 'microphone=()', 'midi=()', 'payment=()', 'picture-in-picture=()',
  'publickey-credentials-create=()', 'publickey-credentials-get=()', 'screen-wake-lock=()', 'serial=()', 'usb=()', 'web-share=()',
  'xr-spatial-tracking=()',
].join(', ');

/**
 * Cross-cutting response policies, installed first so that every response gets them, including
 * 404s and rejected bodies: the request id (X-Request-Id), the request's log line and its
 * duration for /metrics, X-Robots-Tag unless PWP__NOINDEX is false (secrets live behind these
 * URLs: nothing here belongs in a search index), the Permissions-Policy and helmet's security
 * headers. One middleware rather than one each: every Express layer costs every request.
 */
export function configureHttpPolicies(app: NestExpressApplication, settings: Settings): void {
  const metrics = app.get(Metrics);
  const logger = app.get(AppLogger);
  const common: Header[] = [['Permissions-Policy', PERMISSIONS_POLICY], ...(settings.pages.noindex ? [['X-Robots-Tag', 'noindex, nofollow'] as const] : [])];
  const api = [...common, ...securityHeaders(helmet())];
  // Swagger UI loads its scripts from 'self' and uses inline styles, which helmet's default CSP
  // allows; only upgrade-insecure-requests would break its assets on a plain-http deployment.
  const docs = [...common, ...securityHeaders(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }))];
  app.use((req: Request, res: Response, next: NextFunction) => {
    requestId(req, res);
    const started = process.hrtime.bigint();
    // After 'finish' for an answered request; alone when the client went away first.
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (res.writableFinished) recordRequest(metrics, req, res, seconds);
      logger.request(req, res, seconds);
    });
    for (const [name, value] of DOCS_PATH.test(req.path) ? docs : api) res.setHeader(name, value);
    next();
  });
}

/** CORS when CORS_ORIGINS allows some origins (none by default): after API v1's own policy for POST /p.json. */
export function configureCors(app: NestExpressApplication, settings: Settings): void {
  if (settings.corsOrigins.length === 0) return;
  app.enableCors({
    origin: settings.corsOrigins.includes('*') ? '*' : settings.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-User-Email', 'X-User-Token', 'X-Passphrase', 'X-Request-Id'],
    exposedHeaders: ['Link', 'Retry-After', 'X-Request-Id'],
    // Tokens travel in headers, never cookies.
    credentials: false,
    maxAge: 600,
  });
}

/**
 * FORCE_SSL, after the policies above (so its answers carry them too): a request that came over
 * plain HTTP is not served. A GET or HEAD is redirected to the same URL over https (301, as the
 * reference does); anything else is refused (403) rather than redirected, since its body, which
 * may hold a secret, has already crossed the network in clear, and a client that follows the
 * redirect would send it a second time. The probes and /metrics stay on plain HTTP.
 */
export function requireHttps(req: Request, res: Response, next: NextFunction): void {
  if (req.secure || PLAIN_HTTP_PATHS.has(req.path)) return next();
  if (req.method === 'GET' || req.method === 'HEAD') return res.redirect(301, `https://${req.host}${req.originalUrl}`);
  // The URL is not repeated: its query may hold a passphrase.
  res.status(403).json({ error: 'HTTPS is required: send this request over https.' });
}

type Header = readonly [name: string, value: string];
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The headers a helmet configuration sets, worked out once: with static directives (no nonce
 * functions, which the service does not use here) they never depend on the request, and setting
 * a list costs each request less than helmet's chain of a dozen middlewares. Helmet still
 * decides every name and value.
 */
export function securityHeaders(middleware: Middleware): Header[] {
  const headers: Header[] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.push([name, String(value)]),
    // helmet removes X-Powered-By, which the app never sends (configureApp disables it).
    removeHeader: () => undefined,
  };
  let passed = false;
  middleware({ method: 'GET', url: '/', headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (error) => (passed = error === undefined));
  // helmet answers at once; anything else would mean headers worked out some other way.
  if (!passed || headers.length === 0) throw new Error('helmet did not set its headers at once');
  return headers;
}

import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Settings } from '@app/config';
import { Metrics, requestTimer } from '@app/metrics';
import { requestId } from './logging.module';

/** Swagger UI's path prefix (its page and assets); see openapi.ts. */
const DOCS_PATH = /^\/api-docs(?:[/.?]|$)/;

/**
 * Cross-cutting response policies, installed first so that every response gets them, including
 * 404s and rejected bodies: the request id (X-Request-Id), request timing for /metrics,
 * X-Robots-Tag (secrets live behind these URLs: nothing here belongs in a search index), helmet's
 * security headers, and CORS when CORS_ORIGINS allows some origins (none by default). One
 * middleware rather than one each: every Express layer costs every request.
 */
export function configureHttpPolicies(app: NestExpressApplication, settings: Settings): void {
  const timeRequest = requestTimer(app.get(Metrics));
  const api = helmet();
  // Swagger UI loads its scripts from 'self' and uses inline styles, which helmet's default CSP
  // allows; only upgrade-insecure-requests would break its assets on a plain-http deployment.
  const docs = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  app.use((req: Request, res: Response, next: NextFunction) => {
    requestId(req, res);
    timeRequest(req, res);
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    (DOCS_PATH.test(req.path) ? docs : api)(req, res, next);
  });
  if (settings.corsOrigins.length > 0) {
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
}

import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { Settings } from '@app/config';
import { httpMetricsMiddleware, Metrics } from '@app/metrics';

/** Swagger UI's path prefix (its page and assets); see openapi.ts. */
const DOCS_PATH = /^\/api-docs(?:[/.?]|$)/;

/** Secrets live behind these URLs: nothing here belongs in a search index. */
function noRobots(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  next();
}

/**
 * Cross-cutting response policies, installed before body parsing so that every response gets
 * them, including 404s and rejected bodies: request timing for /metrics, X-Robots-Tag, helmet's
 * security headers, and CORS when CORS_ORIGINS allows some origins (none by default).
 */
export function configureHttpPolicies(app: NestExpressApplication, settings: Settings): void {
  app.use(httpMetricsMiddleware(app.get(Metrics)));
  app.use(noRobots);
  const api = helmet();
  // Swagger UI loads its scripts from 'self' and uses inline styles, which helmet's default CSP
  // allows; only upgrade-insecure-requests would break its assets on a plain-http deployment.
  const docs = helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
  app.use((req: Request, res: Response, next: NextFunction) => (DOCS_PATH.test(req.path) ? docs : api)(req, res, next));
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

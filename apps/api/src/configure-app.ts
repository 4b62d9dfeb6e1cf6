import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Express, NextFunction, Request, Response } from 'express';
import { apiV1Policies } from '@app/api-v1';
import { presentsCredentials } from '@app/auth';
import { type BodyType, RequestBodies } from '@app/common';
import { proxyTrust, type Settings } from '@app/config';
import { CreatePushRoutes } from '@app/pushes';
import { configureCors, configureHttpPolicies, requireHttps } from './http-policies';
import { configureHttpServer } from './http-server';
import { routeJsonPaths } from './json-paths';
import { AppLogger } from './logging.module';
import { setupOpenApi } from './openapi';
import { parseScalarQuery } from './query-string';

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
  configureHttpPolicies(app, settings);
  if (settings.forceSsl) app.use(requireHttps);
  app.use(routeJsonPaths);
  // Before CORS_ORIGINS' policy: any origin may POST /p.json, whatever that setting says. With the
  // app's routing options, so that it takes a path to be v1's exactly when the app's routing does.
  const express: Express = app.getHttpAdapter().getInstance();
  app.use(apiV1Policies(settings, { caseSensitive: express.enabled('case sensitive routing'), strict: express.enabled('strict routing') }));
  configureCors(app, settings);
  const bodies = app.get(RequestBodies);
  app.use(bodyReader(bodies, app.get(CreatePushRoutes)));
  configureHttpServer(app.getHttpServer(), settings.http, bodies);
  setupOpenApi(app);
}

/**
 * JSON and form bodies, read before routing by one middleware that requests without a body (most
 * of them) pass at once; see RequestBodies for the limits, the budget and the deadline. A body of
 * another type or compressed is a 415 here, unread. Two kinds of body are left to the create
 * route, which reads them after authentication (see @app/pushes): multipart, which streams files
 * into storage, and the JSON of a create that presents a credential, which may carry base64 files
 * and so gets the larger limit, but only once the credential is known to be good: a bogus token
 * gets its 401 without its body being read.
 */
function bodyReader(bodies: RequestBodies, createRoutes: CreatePushRoutes) {
  return (req: Request, res: Response, next: NextFunction): void => {
    // No route reads the body of these; clients send one anyway (PassPushPosh: JSON `null` with every GET and DELETE).
    if (UNREAD_BODY_METHODS.has(req.method)) return next();
    let type: BodyType | undefined;
    try {
      type = bodies.typeOf(req);
    } catch (error) {
      return next(error);
    }
    if (type === undefined || type === 'multipart') return next();
    if (type === 'json' && req.method === 'POST' && createRoutes.has(req.path) && presentsCredentials(req)) return next();
    bodies.read(req, res, type, false).then(() => next(), next);
  };
}

const UNREAD_BODY_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

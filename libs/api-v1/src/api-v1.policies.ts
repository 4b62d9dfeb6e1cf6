import { PATH_METADATA } from '@nestjs/common/constants';
import type { Type } from '@nestjs/common';
import cors from 'cors';
import { type NextFunction, type Request, type RequestHandler, type Response, Router, type RouterOptions } from 'express';
import { clientInfoOf, publicBaseUrl } from '@app/common';
import type { Settings } from '@app/config';
import { V1PushesController } from './v1-pushes.controller';
import { V1VersionController } from './v1-version.controller';

/** The day v1 was deprecated here (RFC 9745: `@` and seconds since the epoch): the day v2 became this service's API. */
const DEPRECATED_ON = `@${Date.UTC(2026, 10, 25) / 1000}`;
/** The one route the reference opens to every origin, for browser tools that push secrets. */
const OPEN_TO_EVERY_ORIGIN = '/p.json';
const VERSION = '/api/v1/version';

/**
 * API v1's policies, before routing and body reading, so they hold for every answer, errors
 * included: the deprecation headers (RFC 9745 `Deprecation`, RFC 8594 `Link` to the successor's
 * docs), `Cache-Control: no-store` on its push routes as on v2's, CORS for any origin on
 * `POST /p.json` (as the reference allows), and the off switch (PWP__API_V1__ENABLED=false: 404,
 * the version endpoint included, before any body is read).
 *
 * Which requests are v1 is decided by the routes v1's controllers declare, matched by a router of
 * Express's with the app's own routing options, so exactly the requests that routing takes to a v1
 * handler get the policy, however they are spelled (a trailing slash, capitals, an encoded token):
 * a pattern of our own would disagree with Express's loose matching somewhere.
 */
export function apiV1Policies(settings: Settings, routing: Pick<RouterOptions, 'caseSensitive' | 'strict'>): RequestHandler {
  const router = Router(routing);
  const openCors = cors({ origin: '*', methods: ['POST'], maxAge: 600 });
  for (const path of v1Paths()) {
    // `all`: OPTIONS (a CORS preflight) and methods no v1 handler takes are v1's answers too.
    router.all(path, (req: Request, res: Response, next: NextFunction) => {
      // What the route matched is this router's business: the app's routing decides req.route again.
      req.route = undefined;
      if (!settings.apiV1Enabled) return void res.status(404).json({ error: 'not-found' });
      res.setHeader('Deprecation', DEPRECATED_ON);
      res.setHeader('Link', `<${publicBaseUrl(settings, clientInfoOf(req))}/api-docs>; rel="successor-version"`);
      if (path !== VERSION) res.setHeader('Cache-Control', 'no-store');
      // 'router' leaves this router for the app's next middleware.
      if (path === OPEN_TO_EVERY_ORIGIN) return openCors(req, res, () => next('router'));
      next('router');
    });
  }
  return router;
}

/** Every path v1's controllers route, as Nest joins them from their decorators (`@Controller(base)`, `@Get(path or paths)`). */
export function v1Paths(): string[] {
  return [V1PushesController, V1VersionController].flatMap(routePaths);
}

function routePaths(controller: Type): string[] {
  const bases = asList(Reflect.getMetadata(PATH_METADATA, controller));
  const prototype = controller.prototype as Record<string, unknown>;
  const handlers = Object.getOwnPropertyNames(prototype)
    .filter((name) => name !== 'constructor')
    .map((name) => prototype[name]).filter((handler) => typeof handler === 'function');
  const paths = handlers.flatMap((handler) => asList(Reflect.getMetadata(PATH_METADATA, handler)));
  return [...new Set(bases.flatMap((base) => paths.map((path) => `/${[base, path].map((part) => part.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/')}`)))];
}

const asList = (value: unknown): string[] => (value === undefined ? [] : Array.isArray(value) ? (value as string[]) : [value as string]);

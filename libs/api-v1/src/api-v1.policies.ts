import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';
import { clientInfoOf, publicBaseUrl } from '@app/common';
import type { Settings } from '@app/config';

/** A v1 push route: `/p.json`, `/f.json`, `/r.json`, or a path under `/p`, `/f` or `/r` that ends in `.json`. */
const PUSH_ROUTE = /^\/[pfr](?:\/.+)?\.json$/i;
const VERSION_ROUTE = /^\/api\/v1\/version(?:\.json)?$/i;
/** The day v1 was deprecated here (RFC 9745: `@` and seconds since the epoch): the day v2 became this service's API. */
const DEPRECATED_ON = `@${Date.UTC(2026, 10, 25) / 1000}`;
/** The one route the reference opens to every origin, for browser tools that push secrets. */
const OPEN_TO_EVERY_ORIGIN = '/p.json';

/**
 * API v1's policies, for its routes alone and before routing, so they hold for every answer, errors
 * included: the deprecation headers (RFC 9745 `Deprecation`, RFC 8594 `Link` to the successor's
 * docs), `Cache-Control: no-store` as on v2's push routes, CORS for any origin on `POST /p.json`
 * (as the reference allows), and the off switch (PWP__API_V1__ENABLED=false: 404, the version
 * endpoint excepted, so clients can still tell what this server speaks).
 */
export function apiV1Policies(settings: Settings) {
  const openCors = cors({ origin: '*', methods: ['POST'], maxAge: 600 });
  return (req: Request, res: Response, next: NextFunction): void => {
    const path = req.path;
    const version = VERSION_ROUTE.test(path);
    if (!version && !PUSH_ROUTE.test(path)) return next();
    res.setHeader('Deprecation', DEPRECATED_ON);
    res.setHeader('Link', `<${publicBaseUrl(settings, clientInfoOf(req))}/api-docs>; rel="successor-version"`);
    if (version) return next();
    res.setHeader('Cache-Control', 'no-store');
    if (!settings.apiV1Enabled) return void res.status(404).json({ error: 'not-found' });
    if (path === OPEN_TO_EVERY_ORIGIN) return openCors(req, res, next);
    next();
  };
}

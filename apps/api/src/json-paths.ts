import type { NextFunction, Request, Response } from 'express';

const SUFFIX = '.json';
/** Download links are opaque: a `.json` there is part of nothing the API names. */
const DOWNLOAD = /^\/api\/v2\/(?:pushes|requests)\/[^/]+\/files\//;

/**
 * The reference's routes answer with a `.json` suffix (`format: :json`), and its clients use it:
 * they detect the API with `GET /api/v2/version.json`. Every API path is routed with the suffix
 * dropped from its last segment, so `/api/v2/pushes/abc.json` reaches the handler of
 * `/api/v2/pushes/abc` through the same guards and pipes: one rewrite before routing rather than
 * a second route per handler. The reference's v1 paths outside `/api` (`/p.json`,
 * `/p/:url_token.json`) are routes of their own (@app/api-v1), since `/p/:url_token` is a page.
 */
export function routeJsonPaths(req: Request, _res: Response, next: NextFunction): void {
  const url = req.url;
  if (url.startsWith('/api/')) {
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    // `/api/v2/pushes/.json` names no segment: left alone, it is a 404 like any unknown path.
    if (path.endsWith(SUFFIX) && path[path.length - SUFFIX.length - 1] !== '/' && !DOWNLOAD.test(path)) req.url = path.slice(0, -SUFFIX.length) + (query === -1 ? '' : url.slice(query));
  }
  next();
}

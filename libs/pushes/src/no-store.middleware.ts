import type { NextFunction, Request, Response } from 'express';

/**
 * Secrets must not be kept by browsers or intermediaries: Cache-Control: no-store on every
 * response of the push routes, errors included. As a middleware it runs before guards and the
 * exception filter, which decorators on the handler never reach.
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

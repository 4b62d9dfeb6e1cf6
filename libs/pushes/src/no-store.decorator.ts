import { Header } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Secrets must not be kept by browsers or intermediaries. */
export const NoStore = (): MethodDecorator => Header('Cache-Control', 'no-store');

/**
 * The same for every response of the push routes, errors included: as a middleware it runs
 * before guards and the exception filter, which decorators on the handler never reach.
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}

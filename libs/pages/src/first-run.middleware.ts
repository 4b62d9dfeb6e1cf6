import { Injectable, NestMiddleware, OnApplicationBootstrap } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { FirstRunService } from '@app/auth';

/**
 * While no account exists, the owner-facing pages (`/`, `/p/new`, `/users/...`, `/dashboard/...`;
 * PagesModule names them) lead to /first_run; recipients' pages and the API never do. At start-up
 * it has the boot code logged, when the first run is needed.
 */
@Injectable()
export class FirstRunRedirect implements NestMiddleware, OnApplicationBootstrap {
  constructor(private readonly firstRun: FirstRunService) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.firstRun.announce();
  }

  async use(_request: Request, response: Response, next: NextFunction): Promise<void> {
    if (await this.firstRun.needed()) return response.redirect(303, '/first_run');
    next();
  }
}

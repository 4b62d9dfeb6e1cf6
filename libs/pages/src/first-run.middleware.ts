import { Injectable, NestMiddleware, OnApplicationBootstrap } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { FirstRunService } from '@app/auth';

/**
 * While no account exists, the owner-facing pages (`/`, `/p/new`, `/users/...`, `/dashboard/...`;
 * PagesModule names them) lead to /first_run; recipients' pages and the API never do.
 */
@Injectable()
export class FirstRunRedirect implements NestMiddleware {
  constructor(private readonly firstRun: FirstRunService) {}

  async use(_request: Request, response: Response, next: NextFunction): Promise<void> {
    if (await this.firstRun.needed()) return response.redirect(303, '/first_run');
    next();
  }
}

/** Has the boot code logged at start-up, when the first run is needed (the server's pages only: never the CLI). */
@Injectable()
export class FirstRunAnnouncer implements OnApplicationBootstrap {
  constructor(private readonly firstRun: FirstRunService) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.firstRun.announce();
  }
}

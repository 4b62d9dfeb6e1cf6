import { Injectable, Logger, NestMiddleware, OnApplicationBootstrap } from '@nestjs/common';
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

/**
 * Has the boot code logged at start-up, when the first run is needed (the server's pages only: never
 * the CLI). A schema not migrated yet (DB_MIGRATE_ON_START=false) does not stop the start: /first_run
 * logs a code when it finds none, once `migrations:run` has made the tables.
 */
@Injectable()
export class FirstRunAnnouncer implements OnApplicationBootstrap {
  private readonly logger = new Logger('FirstRun');

  constructor(private readonly firstRun: FirstRunService) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.firstRun.announce();
    } catch (error) {
      this.logger.warn(`First run: could not look for accounts at start-up (${(error as Error).name}); /first_run logs a boot code when it is opened.`);
    }
  }
}

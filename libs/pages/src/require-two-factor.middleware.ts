import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { TwoFactorService } from '@app/auth';
import { PageSession } from './page-session';
import { TWO_FACTOR_SETUP_PATH } from './two-factor-pages';

/**
 * PWP__REQUIRE_MFA on the pages: a signed-in person who signs in with a password and has not
 * turned two-factor on is sent to its setup from every page PagesModule names (the setup itself
 * and sign-out are not among them). API v1's `.json` paths beside the pages are the API's: their
 * tokens get the guard's 403 instead.
 */
@Injectable()
export class RequireTwoFactor implements NestMiddleware {
  constructor(
    private readonly session: PageSession,
    private readonly twoFactor: TwoFactorService,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    this.setUpFirst(request).then((redirect) => (redirect ? response.redirect(303, TWO_FACTOR_SETUP_PATH) : next()), next);
  }

  private async setUpFirst(request: Request): Promise<boolean> {
    if (request.path.endsWith('.json')) return false;
    const user = await this.session.user(request);
    return user !== null && (await this.twoFactor.mustSetUp(user));
  }
}

import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { type AuthenticatedUser, PeopleAdministration, TwoFactorService } from '@app/auth';
import { NotFoundError } from '@app/common';
import { PageSession } from '@app/pages';

/** An administrator who must turn two-factor on first (PWP__REQUIRE_MFA): sent to its setup, as from every other page. */
export class TwoFactorSetupDue extends Error {}

export type AdminRequest = Request & { user?: AuthenticatedUser };

/**
 * The administration's one gate, before every /admin route: anyone but a signed-in administrator
 * gets the neutral 404 (no redirect to sign-in: the pages do not say they exist); under
 * PWP__REQUIRE_MFA an administrator without two-factor is sent to its setup; every POST must carry
 * the form's CSRF token. The administrator is `request.user` for the handlers.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    private readonly session: PageSession,
    private readonly people: PeopleAdministration,
    private readonly twoFactor: TwoFactorService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const user = await this.session.user(request);
    if (!user || !(await this.people.isAdministrator(user))) throw new NotFoundError();
    if (await this.twoFactor.mustSetUp(user)) throw new TwoFactorSetupDue();
    if (request.method === 'POST') this.session.checkCsrf(request);
    request.user = user;
    return true;
  }
}

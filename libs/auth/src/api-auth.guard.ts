import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { ForbiddenError, isUnavailableError, ServiceUnavailableError, UnauthenticatedError } from '@app/common';
import { InjectSettings, Settings } from '@app/config';
import { Access, ACCESS_KEY } from './access.decorators';
import { AuthenticatedUser } from './authenticated-user';
import { TwoFactorService } from './two-factor/two-factor.service';

const CREDENTIAL_HEADERS = ['authorization', 'x-user-token', 'x-user-email'];

/** PWP__REQUIRE_MFA: what a token of someone without two-factor gets on every call. */
export const TWO_FACTOR_REQUIRED =
  "Two-factor authentication is required. Sign in on this service's pages and turn it on under Your account (/user/two_factor); this token works again once it is on.";

/**
 * Whether the request carries any credential; one that is sent must be valid, even on public routes.
 * Also what the body reader asks before a create's body is read (the body then holds none yet).
 */
export function presentsCredentials(request: Request): boolean {
  const query = request.query as Record<string, unknown>;
  const body = request.body as Record<string, unknown> | undefined;
  return CREDENTIAL_HEADERS.some((name) => request.headers[name] !== undefined) || query.access_token !== undefined || body?.access_token !== undefined;
}

/**
 * Global guard. Routes are anonymous-allowed unless marked @Authenticated() or @Public();
 * PWP__ALLOW_ANONYMOUS=false makes every non-public route need a token. Under PWP__REQUIRE_MFA,
 * a valid token of someone who signs in with a password and has not turned two-factor on gets 403.
 */
@Injectable()
export class ApiAuthGuard extends AuthGuard(['bearer', 'header-pair']) {
  constructor(
    private readonly reflector: Reflector,
    @InjectSettings() private readonly settings: Settings,
    private readonly twoFactor: TwoFactorService,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<Access | undefined>(ACCESS_KEY, [context.getHandler(), context.getClass()]) ?? 'anonymous-allowed';
    if (access === 'public') return true;
    if (!presentsCredentials(context.switchToHttp().getRequest<Request>())) {
      if (access === 'authenticated' || !this.settings.allowAnonymous) {
        throw new UnauthenticatedError('Authentication required: send Authorization: Bearer <API token>.');
      }
      return true;
    }
    const allowed = (await super.canActivate(context)) as boolean;
    const { user } = context.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>();
    if (allowed && user && (await this.twoFactor.mustSetUp(user))) throw new ForbiddenError(TWO_FACTOR_REQUIRED);
    return allowed;
  }

  override handleRequest<T = AuthenticatedUser>(error: unknown, user: T | false): T {
    // A token that could not be checked is not an invalid token: clients must not drop it on a 401.
    if (isUnavailableError(error)) throw new ServiceUnavailableError();
    if (error || !user) throw new UnauthenticatedError('Invalid or revoked API token.');
    return user;
  }
}

import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthenticatedUser } from '@app/auth';
import { PageSession } from './page-session';

type PageRequest = Request & { user?: AuthenticatedUser };

/**
 * The signed-in person of a page request, from the session cookie, as `request.user`: where the
 * API's routes have the token's owner, so that a create through the pages meets the same rules
 * (files need an owner) in the same guard. Lets everyone through: each page decides what a
 * visitor without a session gets.
 */
@Injectable()
export class SessionUserGuard implements CanActivate {
  constructor(private readonly session: PageSession) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<PageRequest>();
    request.user = (await this.session.user(request)) ?? undefined;
    return true;
  }
}

/** The signed-in person (see SessionUserGuard), or undefined. */
export const SessionUser = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<PageRequest>().user);

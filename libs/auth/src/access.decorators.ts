import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Request } from 'express';
import type { AuthenticatedUser } from './authenticated-user';
import { ApiNoAuthentication, ApiRequiredAuthentication } from './auth.openapi';

export type Access = 'public' | 'anonymous-allowed' | 'authenticated';
export const ACCESS_KEY = 'pwpush:access';

/** No authentication at all, not even a check of a token that is sent (the version endpoint). */
export const Public = () => applyDecorators(SetMetadata(ACCESS_KEY, 'public' satisfies Access), ApiNoAuthentication());

/** A valid token is required. */
export const Authenticated = () => applyDecorators(SetMetadata(ACCESS_KEY, 'authenticated' satisfies Access), ApiRequiredAuthentication());

/** The caller, or undefined for an anonymous request. */
export const CurrentUser = createParamDecorator(
  (_: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>().user,
);

/**
 * Authentication: users, API tokens (random, shown once, stored as SHA-256), the bearer and
 * legacy header-pair strategies, the global guard with its access decorators, and the pages'
 * sessions (a row per signed-in browser).
 */
export * from './access.decorators';
export { presentsCredentials } from './api-auth.guard';
export * from './auth.openapi';
export * from './account.errors';
export * from './auth.module';
export type { AuthenticatedUser } from './authenticated-user';
export { UsersService, DEFAULT_TOKEN_NAME, type IssuedToken, type TokenSummary, type UserSummary } from './users.service';
export { SessionsService, SESSION_LIFETIME_MS } from './sessions.service';
export { SessionEntity } from './session.entity';
export { UserEntity } from './user.entity';
export { ApiTokenEntity } from './api-token.entity';

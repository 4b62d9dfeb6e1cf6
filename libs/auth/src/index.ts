/**
 * Authentication: users, API tokens (random, shown once, stored as SHA-256), the bearer and
 * legacy header-pair strategies, and the global guard with its access decorators.
 */
export * from './access.decorators';
export * from './auth.openapi';
export * from './account.errors';
export * from './auth.module';
export type { AuthenticatedUser } from './authenticated-user';
export { UsersService, DEFAULT_TOKEN_NAME, type IssuedToken, type UserSummary } from './users.service';
export { UserEntity } from './user.entity';
export { ApiTokenEntity } from './api-token.entity';

/**
 * Per-client request limits (PWP__THROTTLING__MINUTE / __SECOND) as a global guard: one budget
 * per client IP across all routes, counted in Redis when configured so replicas share it.
 * Operational endpoints opt out with @SkipThrottle(). Also the lockout counters for repeated
 * failures (wrong passphrases, sign-ins): FailedAttempts, and SignInAttempts over it.
 */
export * from './rate-limit.module';
export * from './failed-attempts.module';
export { FailedAttempts } from './failed-attempts';
export { SignInAttempts, SIGN_IN_LIMITS } from './sign-in-attempts';

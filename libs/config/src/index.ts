/**
 * Configuration: every setting the service reads, typed and validated once at start-up, and what
 * to tell the operator when the process cannot start. Nothing outside this library reads process.env.
 */
export * from './settings';
export * from './config.module';
export { readProcessEnv } from './process-env';
export { proxyTrust } from './trusted-proxies';
export { describeStartupFailure } from './startup-failure';

/**
 * Shared building blocks: the clock, domain errors and their HTTP mapping, validation
 * decorators, what we know about the calling client, the shared OpenAPI vocabulary, and how
 * request bodies are read (limits, the process's budget, the deadline).
 */
export * from './ascii-case';
export * from './clock';
export * from './client-info';
export * from './common.module';
export * from './errors';
export * from './exception.filter';
export * from './validation';
export * from './paging';
export * from './reveals-secret';
export * from './request-bodies';
export * from './openapi';
export * from './interval-job';

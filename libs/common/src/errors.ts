/**
 * Errors raised by services for outcomes the API contract names. They carry no HTTP types;
 * the exception filter maps each to its status and body.
 */
export type FieldErrors = Record<string, string[]>;

export class NotFoundError extends Error {
  constructor() {
    super('not-found');
  }
}

/** 400: the request cannot be read at all (missing body, bad page parameter, ...). */
export class BadRequestError extends Error {}

/** 413: the request body (or a file in it) is over a limit; refused while it streams in. */
export class PayloadTooLargeError extends Error {}

/** 415: a body in a type or a Content-Encoding this API does not read; `headers` say what it does read. */
export class UnsupportedMediaTypeError extends Error {
  constructor(
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(message);
  }
}

/** 422: the request is readable but breaks a rule; the first message doubles as `error`. */
export class ValidationFailedError extends Error {
  constructor(readonly errors: FieldErrors) {
    super(Object.values(errors).flat()[0] ?? 'Validation failed.');
  }

  static of(field: string, message: string): ValidationFailedError {
    return new ValidationFailedError({ [field]: [message] });
  }
}

/**
 * Gathers a request's field errors, so that every field at fault is reported at once in one 422.
 * A field already at fault (`files`, or `files.0.data` under it) keeps its first message.
 */
export class FieldFaults {
  private readonly errors: FieldErrors;

  constructor(initial: FieldErrors = {}) {
    this.errors = { ...initial };
  }

  has(field: string): boolean {
    return Object.keys(this.errors).some((key) => key === field || key.startsWith(`${field}.`));
  }

  add(field: string, message: string | undefined): void {
    if (message !== undefined && !this.has(field)) this.errors[field] = [message];
  }

  throwIfAny(): void {
    if (Object.keys(this.errors).length > 0) throw new ValidationFailedError(this.errors);
  }
}

/** 401 for a protected push retrieved without the right passphrase. */
export class PassphraseRequiredError extends Error {
  constructor() {
    super('That passphrase is incorrect.');
  }
}

/** 401: a credential is needed or the one given is not valid. */
export class UnauthenticatedError extends Error {}

/** 403: authenticated, but not allowed. */
export class ForbiddenError extends Error {}

/** 409: the change was made already, by someone else (a request answered once). */
export class ConflictError extends Error {}

/** 405: the route exists, but not for this method (HEAD on a route that reveals a secret). */
export class MethodNotAllowedError extends Error {
  constructor(readonly allow: string[]) {
    super('Method not allowed: this route reveals a secret and counts a view, so it answers only a GET.');
  }
}

/** 429 with a Retry-After in seconds. */
export class TooManyRequestsError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** 503: a dependency (the database, ...) cannot be reached, or the server is full; `details` are added to the body. */
export class ServiceUnavailableError extends Error {
  constructor(
    message = 'service-unavailable',
    readonly details: Record<string, unknown> = {},
    readonly retryAfterSeconds = 5,
  ) {
    super(message);
  }
}

/**
 * Error codes that mean "the database (or another dependency) cannot be reached or did not answer
 * in time", as opposed to a bug or bad data: socket errors, mysql2's timeouts and lost
 * connections, MySQL refusing connections, PostgreSQL's connection failures (class 08), shutdown,
 * too many connections and timeouts (SQLSTATE), SQLite unable to open or lock its file.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'PROTOCOL_ENQUEUE_AFTER_QUIT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08004', // sqlserver_rejected_establishment_of_sqlconnection
  '08006', // connection_failure
  '53300', // too_many_connections
  '55P03', // lock_not_available (lock_timeout)
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/** node-postgres raises these without a code: a lost or timed-out connection, a pool that could not connect in time. */
const UNAVAILABLE_MESSAGES = new Set([
  'Connection terminated',
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);

/** An error's code, or that of the driver error a TypeORM error wraps: safe to log, unlike messages. */
export function errorCode(error: unknown): string | undefined {
  const { code, driverError } = (error ?? {}) as { code?: unknown; driverError?: { code?: unknown } };
  const found = typeof code === 'string' ? code : driverError?.code;
  return typeof found === 'string' ? found : undefined;
}

/** Whether an error (or the driver error a TypeORM error wraps) says a dependency is unavailable. */
export function isUnavailableError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && typeof current === 'object' && depth < 3; depth++) {
    const { code, message, driverError } = current as { code?: unknown; message?: unknown; driverError?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_IOERR'))) return true;
    if (code === undefined && typeof message === 'string' && UNAVAILABLE_MESSAGES.has(message)) return true;
    current = driverError;
  }
  return false;
}

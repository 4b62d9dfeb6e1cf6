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

/** 422: the request is readable but breaks a rule; the first message doubles as `error`. */
export class ValidationFailedError extends Error {
  constructor(readonly errors: FieldErrors) {
    super(Object.values(errors).flat()[0] ?? 'Validation failed.');
  }

  static of(field: string, message: string): ValidationFailedError {
    return new ValidationFailedError({ [field]: [message] });
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

/** 429 with a Retry-After in seconds. */
export class TooManyRequestsError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

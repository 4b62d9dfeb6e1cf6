import { ArgumentsHost, BadRequestException, Catch, ExceptionFilter, HttpException, HttpStatus, Logger, NotFoundException } from '@nestjs/common';
import type { Response } from 'express';
import {
  BadRequestError,
  ConflictError,
  errorCode,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  PassphraseRequiredError,
  PayloadTooLargeError,
  isUnavailableError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from './errors';

export const MALFORMED_URL = 'Malformed URL: invalid percent-encoding.';

export interface ErrorBody {
  error: string;
  [key: string]: unknown;
}

/** Seconds a client should wait before retrying after a 503 of a dependency: about one readiness period. */
const RETRY_UNAVAILABLE_AFTER = '5';

const PASSPHRASE_MESSAGE = 'This push requires a passphrase. Provide it with the passphrase query parameter or the X-Passphrase header.';

/**
 * Logs an error that no mapping expected, and says what it is: a dependency that is unavailable
 * (answered 503) or a fault (500). Driver errors can quote SQL parameters, i.e. ciphertexts and
 * tokens: the line names the error's kind and code, never its text.
 */
export function logUnexpected(logger: Logger, exception: unknown, requestId: unknown): 'unavailable' | 'internal' {
  const name = exception instanceof Error ? exception.name : typeof exception;
  const code = errorCode(exception);
  const what = `${name}${code ? ` (${code})` : ''} in request ${String(requestId)}`;
  if (isUnavailableError(exception)) {
    logger.warn(`Database unavailable: ${what}`);
    return 'unavailable';
  }
  logger.error(`Unhandled ${what}`);
  return 'internal';
}

/** Maps every error to the contract's JSON error body; anything unexpected is a logged 500 without details. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const [status, body, headers] = this.describe(exception, http.getRequest<{ id?: unknown }>().id);
    if (response.headersSent) return;
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.status(status).json(body);
  }

  /** `requestId` goes into the log lines, to join them with the request's own. */
  private describe(exception: unknown, requestId: unknown): [number, ErrorBody, Record<string, string>] {
    if (exception instanceof ValidationFailedError) {
      return [HttpStatus.UNPROCESSABLE_ENTITY, { error: exception.message, errors: exception.errors }, {}];
    }
    if (exception instanceof NotFoundError) return [HttpStatus.NOT_FOUND, { error: 'not-found' }, {}];
    if (exception instanceof BadRequestError) return [HttpStatus.BAD_REQUEST, { error: exception.message }, {}];
    if (exception instanceof PayloadTooLargeError) return [HttpStatus.PAYLOAD_TOO_LARGE, { error: exception.message }, {}];
    if (exception instanceof PassphraseRequiredError) {
      return [HttpStatus.UNAUTHORIZED, { error: exception.message, message: PASSPHRASE_MESSAGE }, {}];
    }
    if (exception instanceof UnauthenticatedError) {
      return [HttpStatus.UNAUTHORIZED, { error: exception.message }, { 'WWW-Authenticate': 'Bearer' }];
    }
    if (exception instanceof ForbiddenError) return [HttpStatus.FORBIDDEN, { error: exception.message }, {}];
    if (exception instanceof ConflictError) return [HttpStatus.CONFLICT, { error: exception.message }, {}];
    if (exception instanceof MethodNotAllowedError) return [HttpStatus.METHOD_NOT_ALLOWED, { error: exception.message }, { Allow: exception.allow.join(', ') }];
    if (exception instanceof TooManyRequestsError) {
      return [HttpStatus.TOO_MANY_REQUESTS, { error: exception.message }, { 'Retry-After': String(exception.retryAfterSeconds) }];
    }
    if (exception instanceof ServiceUnavailableError) {
      return [HttpStatus.SERVICE_UNAVAILABLE, { error: exception.message, ...exception.details }, { 'Retry-After': String(exception.retryAfterSeconds) }];
    }
    if (exception instanceof UnsupportedMediaTypeError) return [HttpStatus.UNSUPPORTED_MEDIA_TYPE, { error: exception.message }, exception.headers];
    if (exception instanceof NotFoundException) return [HttpStatus.NOT_FOUND, { error: 'not-found' }, {}];
    if (exception instanceof HttpException) return this.fromHttpException(exception);
    if (logUnexpected(this.logger, exception, requestId) === 'unavailable') {
      return [HttpStatus.SERVICE_UNAVAILABLE, { error: 'service-unavailable' }, { 'Retry-After': RETRY_UNAVAILABLE_AFTER }];
    }
    return [HttpStatus.INTERNAL_SERVER_ERROR, { error: 'internal-error' }, {}];
  }

  private fromHttpException(exception: HttpException): [number, ErrorBody, Record<string, string>] {
    // Our own code raises domain errors; a bare 400 is Nest's mapping of a URL that does not
    // decode, whose message would quote the raw path (a token fragment).
    if (exception instanceof BadRequestException) return [HttpStatus.BAD_REQUEST, { error: MALFORMED_URL }, {}];
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : typeof (response as { message?: unknown }).message === 'string'
          ? (response as { message: string }).message
          : exception.message;
    return [status, { error: message }, {}];
  }
}

/** The driver's error code, from the error or the driver error a TypeORM error wraps. */
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BadRequestError, ForbiddenError, logUnexpected, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, TooManyRequestsError, UnauthenticatedError, ValidationFailedError } from '@app/common';
import { PageResponder, type PageResult } from './page-responder';

/**
 * Failures of the page routes as pages, not JSON. Unknown and expired pushes share one neutral
 * page (no existence oracle); a refused form, a lockout and an outage say so plainly.
 */
@Catch()
export class PageExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Pages');

  constructor(private readonly responder: PageResponder) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    if (response.headersSent) return;
    if (exception instanceof MethodNotAllowedError) response.setHeader('Allow', exception.allow.join(', '));
    this.responder.send(http.getRequest<Request>(), response, this.pageFor(exception, http.getRequest<{ id?: unknown }>().id));
  }

  private pageFor(exception: unknown, requestId: unknown): PageResult {
    if (exception instanceof NotFoundError) return GONE;
    if (exception instanceof MethodNotAllowedError) return message(405, 'Method not allowed', 'Open this link in a browser to see the secret.');
    if (exception instanceof ForbiddenError) return message(403, 'Not allowed', exception.message);
    if (exception instanceof UnauthenticatedError) return { ...message(401, 'Sign in first', exception.message), data: { message: exception.message, link: SIGN_IN_LINK } };
    if (exception instanceof BadRequestError) return message(400, 'Bad request', exception.message);
    if (exception instanceof PayloadTooLargeError) return message(413, 'Too large', exception.message);
    if (exception instanceof ValidationFailedError) return message(422, 'Not accepted', exception.message);
    if (exception instanceof TooManyRequestsError) {
      return message(429, 'Too many attempts', `${exception.message.replace(/ Try again later\.$/, '')} Try again in ${exception.retryAfterSeconds} seconds.`);
    }
    if (exception instanceof HttpException && exception.getStatus() === 404) return GONE;
    if (exception instanceof HttpException && exception.getStatus() === 429) return message(429, 'Too many requests', 'Too many requests from your address. Wait a minute and try again.');
    if (logUnexpected(this.logger, exception, requestId) === 'unavailable') {
      return message(503, 'Unavailable', 'The service cannot reach its database right now. Try again in a moment.');
    }
    return message(500, 'Something went wrong', 'Something went wrong on our side. Try again in a moment.');
  }
}

const SIGN_IN_LINK = { href: '/users/sign_in', text: 'Sign in' };

/** The same page, whether the push never existed, expired or was deleted. */
export const GONE: PageResult = {
  view: 'gone',
  title: 'Secret not available',
  status: 404,
};

export function message(status: number, title: string, text: string): PageResult {
  return { view: 'message', title, status, data: { message: text } };
}

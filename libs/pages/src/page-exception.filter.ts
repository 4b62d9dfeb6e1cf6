import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { BadRequestError, ForbiddenError, logUnexpected, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, TooManyRequestsError, UnauthenticatedError, ValidationFailedError } from '@app/common';
import { PageResponder, type PageResult } from './page-responder';
import { text } from './page-text';

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
    if (exception instanceof MethodNotAllowedError) return message(405, text('error.methodNotAllowed'), text('error.openInBrowser'));
    if (exception instanceof ForbiddenError) return message(403, text('error.notAllowed'), exception.message);
    if (exception instanceof UnauthenticatedError) return { ...message(401, text('error.signInFirst'), exception.message), data: { message: exception.message, link: SIGN_IN_LINK } };
    if (exception instanceof BadRequestError) return message(400, text('error.badRequest'), exception.message);
    if (exception instanceof PayloadTooLargeError) return message(413, text('error.tooLarge'), exception.message);
    if (exception instanceof ValidationFailedError) return message(422, text('error.notAccepted'), exception.message);
    if (exception instanceof TooManyRequestsError) {
      const reason = exception.message.replace(/ Try again later\.$/, '');
      return message(429, text('error.tooManyAttempts'), text('error.tryAgainIn', { reason, seconds: exception.retryAfterSeconds }));
    }
    if (exception instanceof HttpException && exception.getStatus() === 404) return GONE;
    if (exception instanceof HttpException && exception.getStatus() === 429) return message(429, text('error.tooManyRequests'), text('error.tooManyRequestsText'));
    if (logUnexpected(this.logger, exception, requestId) === 'unavailable') {
      return message(503, text('error.unavailable'), text('error.unavailableText'));
    }
    return message(500, text('error.unexpected'), text('error.unexpectedText'));
  }
}

/** Its words are read when a page uses it, in that page's language. */
const SIGN_IN_LINK = {
  href: '/users/sign_in',
  get text() {
    return text('account.signIn');
  },
};

/** The same page, whether the push never existed, expired or was deleted; its title is read in the page's language. */
export const GONE: PageResult = {
  view: 'gone',
  get title() {
    return text('recipient.gone');
  },
  status: 404,
};

export function message(status: number, title: string, text: string): PageResult {
  return { view: 'message', title, status, data: { message: text } };
}

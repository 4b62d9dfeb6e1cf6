import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PageExceptionFilter, PageResponder, TWO_FACTOR_SETUP_PATH } from '@app/pages';
import { TwoFactorSetupDue } from './admin.guard';

/** The administration's failures as the pages' (a 404 is the neutral page); an administrator who must set up two-factor is sent there. */
@Catch()
export class AdminExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly pages: PageExceptionFilter,
    private readonly responder: PageResponder,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (!(exception instanceof TwoFactorSetupDue)) return this.pages.catch(exception, host);
    const http = host.switchToHttp();
    this.responder.send(http.getRequest<Request>(), http.getResponse<Response>(), { redirect: TWO_FACTOR_SETUP_PATH, status: 303 });
  }
}

import { ArgumentsHost, Catch, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type AuthenticatedUser, Public } from '@app/auth';
import { Client, type ClientInfo, PageQuery, PayloadTooLargeError, ValidationFailedError } from '@app/common';
import type { UploadBatch } from '@app/files';
import { CreatesPush, Uploads } from '@app/pushes';
import { OwnerPages } from './owner-pages';
import { PageExceptionFilter } from './page-exception.filter';
import { PageResponder } from './page-responder';
import { SessionUser, SessionUserGuard } from './session-user.guard';

/**
 * A create refused while its files were being received (too many, too large): the form again,
 * with the message beside the files field. Other failures are pages as everywhere.
 */
@Catch(ValidationFailedError, PayloadTooLargeError)
export class PushFormRefusalFilter {
  constructor(
    private readonly pages: OwnerPages,
    private readonly responder: PageResponder,
  ) {}

  catch(exception: ValidationFailedError | PayloadTooLargeError, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request & { user?: AuthenticatedUser }>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const refusal =
      exception instanceof ValidationFailedError ? { errors: exception.errors, status: 422 } : { errors: { files: [exception.message] }, status: 413 };
    this.responder.send(request, response, this.pages.refusedForm(request, request.user, refusal));
  }
}

/**
 * The owner's pages: the push form (`/`, `/p/new`), the "push created" page, the dashboard, the
 * audit log and "Expire now". Sessions, not API tokens: public to the API guard; the session's
 * person is found first (SessionUserGuard), then a create is received as the API's is (CreatesPush).
 */
@Controller()
@Public()
@UseGuards(SessionUserGuard)
@UseFilters(PageExceptionFilter)
export class OwnerPagesController {
  constructor(
    private readonly pages: OwnerPages,
    private readonly responder: PageResponder,
  ) {}

  @Get(['', 'p/new'])
  form(@Query('kind') kind: unknown, @SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): void {
    this.responder.send(request, response, this.pages.form(user, kind));
  }

  @Post('p/new')
  @HttpCode(200)
  @CreatesPush('push')
  @UseFilters(PushFormRefusalFilter)
  async create(
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Uploads() uploads: UploadBatch | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.create(request, client, user, uploads));
  }

  @Get('p/:url_token/preview')
  async preview(
    @Param('url_token') urlToken: string,
    @Query('push_locale') pushLocale: unknown,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.preview(urlToken, client, user, pushLocale));
  }

  @Get('dashboard/active')
  async active(@Query() query: PageQuery, @Client() client: ClientInfo, @SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.dashboard(user, false, query.page, client));
  }

  @Get('dashboard/expired')
  async expired(@Query() query: PageQuery, @Client() client: ClientInfo, @SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.dashboard(user, true, query.page, client));
  }

  @Get('p/:url_token/audit')
  async audit(
    @Param('url_token') urlToken: string,
    @Query() query: PageQuery,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.audit(urlToken, user, query.page, client));
  }

  @Get('p/:url_token/expire')
  async confirmExpiry(
    @Param('url_token') urlToken: string,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.confirmExpiry(urlToken, user, client));
  }

  @Post('p/:url_token/expire')
  async expire(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.expire(request, urlToken, user, client));
  }
}

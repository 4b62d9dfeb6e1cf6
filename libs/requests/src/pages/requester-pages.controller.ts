import { ArgumentsHost, CanActivate, Catch, Controller, ExecutionContext, Get, HttpCode, Injectable, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type AuthenticatedUser, Public } from '@app/auth';
import { Client, type ClientInfo, PageQuery, PayloadTooLargeError, RevealsSecret, UnauthenticatedError, ValidationFailedError } from '@app/common';
import type { UploadBatch } from '@app/files';
import { PageExceptionFilter, PageResponder, SessionUser, SessionUserGuard, text } from '@app/pages';
import { RequestUploads, TakesRequestFiles } from '../request-body.guard';
import { RequestPagesOn } from './request-pages-on.guard';
import { RequesterPages } from './requester-pages';

type PageRequest = Request & { user?: AuthenticatedUser };

/** A create refuses a visitor without a session before a byte of its files is stored. */
@Injectable()
export class SignedIn implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!context.switchToHttp().getRequest<PageRequest>().user) throw new UnauthenticatedError(text('request.owner.signIn'));
    return true;
  }
}

/** A create refused while its files were received (too many, too large): the form again, with the message beside the files field. */
@Catch(ValidationFailedError, PayloadTooLargeError)
export class RequestFormRefusalFilter {
  constructor(
    private readonly pages: RequesterPages,
    private readonly responder: PageResponder,
  ) {}

  catch(exception: ValidationFailedError | PayloadTooLargeError, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    const refusal = exception instanceof ValidationFailedError ? { errors: exception.errors, status: 422 } : { errors: { files: [exception.message] }, status: 413 };
    this.responder.send(request, response, this.pages.refusedForm(request, refusal));
  }
}

/**
 * The requester's pages, under /dashboard/requests (beside the pushes' tabs; never under the
 * responder's /requests/:url_token). Sessions, not API tokens: public to the API guard; the
 * session's person is found first, and a create's files are received as the API's are.
 */
@Controller('dashboard/requests')
@Public()
@UseGuards(RequestPagesOn, SessionUserGuard)
@UseFilters(PageExceptionFilter)
export class RequesterPagesController {
  constructor(
    private readonly pages: RequesterPages,
    private readonly responder: PageResponder,
  ) {}

  // Lists close the requests whose time has come: a HEAD must not.
  @Get()
  @RevealsSecret()
  async list(
    @Query('state') state: unknown,
    @Query() query: PageQuery,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.list(user, state, query.page, client));
  }

  // Declared before ':url_token', so that "new" is never taken for a token.
  @Get('new')
  form(@SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): void {
    this.responder.send(request, response, this.pages.form(user));
  }

  @Post('new')
  @HttpCode(200)
  @TakesRequestFiles('create-form')
  // Below: decorators apply bottom-up, so this guard runs before the files are read.
  @UseGuards(SignedIn)
  @UseFilters(RequestFormRefusalFilter)
  async create(
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @RequestUploads() uploads: UploadBatch | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.create(request, client, user, uploads));
  }

  // Shows the answer: a read, audited; a HEAD must not be one.
  @Get(':url_token')
  @RevealsSecret()
  async show(
    @Param('url_token') urlToken: string,
    @Query() query: PageQuery,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.show(urlToken, user, query.page, client));
  }

  @Get(':url_token/close')
  @RevealsSecret()
  async confirmClose(
    @Param('url_token') urlToken: string,
    @Client() client: ClientInfo,
    @SessionUser() user: AuthenticatedUser | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.confirmClose(urlToken, user, client));
  }

  @Post(':url_token/close')
  async close(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @SessionUser() user: AuthenticatedUser | undefined, @Req() request: Request, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.close(request, urlToken, user, client));
  }
}

import { ArgumentsHost, Catch, Controller, ExceptionFilter, Get, HttpCode, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/auth';
import { Client, type ClientInfo, ConflictError, PassphraseRequiredError, PayloadTooLargeError, RevealsSecret, ValidationFailedError } from '@app/common';
import type { UploadBatch } from '@app/files';
import { PageExceptionFilter, PageResponder } from '@app/pages';
import { RequestUploads, TakesRequestFiles } from '../request-body.guard';
import { RequestPagesOn } from './request-pages-on.guard';
import { type AnswerRefusal, type AnswerRequest, ResponderPages } from './responder-pages';

/** An answer or an opening refused (see ResponderPages.refused): a page saying what to do; anything else is a page as everywhere. */
@Catch(ConflictError, PassphraseRequiredError, ValidationFailedError, PayloadTooLargeError)
export class ResponderRefusalFilter implements ExceptionFilter {
  constructor(
    private readonly pages: ResponderPages,
    private readonly responder: PageResponder,
    private readonly failures: PageExceptionFilter,
  ) {}

  async catch(exception: AnswerRefusal, host: ArgumentsHost): Promise<void> {
    const request = host.switchToHttp().getRequest<AnswerRequest>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    try {
      this.responder.send(request, response, await this.pages.refused(request, exception));
    } catch (error) {
      this.failures.catch(error, host);
    }
  }
}

/**
 * A request's html_url (`/requests/:url_token`): the responder's pages and their forms. Public to
 * the API guard: responders have no accounts, whatever PWP__ALLOW_ANONYMOUS says about the API.
 */
@Controller('requests')
@Public()
@ApiExcludeController()
@UseGuards(RequestPagesOn)
@UseFilters(PageExceptionFilter)
export class ResponderPagesController {
  constructor(
    private readonly pages: ResponderPages,
    private readonly responder: PageResponder,
  ) {}

  @Get(':url_token')
  // Shows (and audits) the request when it has neither passphrase nor retrieval step.
  @RevealsSecret()
  @UseFilters(ResponderRefusalFilter)
  async open(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: AnswerRequest, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.open(urlToken, client));
  }

  @Post(':url_token/access')
  @HttpCode(200)
  @UseFilters(ResponderRefusalFilter)
  async access(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @Req() request: AnswerRequest, @Res() response: Response): Promise<void> {
    this.responder.send(request, response, await this.pages.access(request, urlToken, client));
  }

  @Post(':url_token')
  @HttpCode(200)
  @TakesRequestFiles('respond-form')
  @UseFilters(ResponderRefusalFilter)
  async answer(
    @Param('url_token') urlToken: string,
    @Client() client: ClientInfo,
    @Req() request: AnswerRequest,
    @Res() response: Response,
    @RequestUploads() uploads?: UploadBatch,
  ): Promise<void> {
    this.responder.send(request, response, await this.pages.answer(request, urlToken, client, uploads));
  }
}

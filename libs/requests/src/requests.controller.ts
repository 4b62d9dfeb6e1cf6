import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuditLogResponse } from '@app/audit';
import { Authenticated, type AuthenticatedUser, CurrentUser, Public } from '@app/auth';
import { answerPage, Client, type ClientInfo, PageQuery, RevealsSecret } from '@app/common';
import { sendFile, type UploadBatch } from '@app/files';
import { Passphrase, PreviewResponse } from '@app/pushes';
import { CreateRequestBody, RespondBody } from './dto/create-request.dto';
import { AnsweredRequestResponse, PublicRequestResponse, RequestResponse } from './dto/request-response.dto';
import { CheckedRequest, RequestUploads, TakesRequestFiles } from './request-body.guard';
import type { StoredRequest } from './requests.repository';
import {
  ApiCloseRequest, ApiCreateRequest, ApiDownloadRequestFile, ApiGetRequestAudit, ApiListActiveRequests, ApiListClosedRequests, ApiListOpenRequests,
  ApiListReadyRequests, ApiPreviewRequest, ApiRespondToRequest, ApiRetrieveRequest,
} from './requests.openapi';
import { type RequestList, RequestsService } from './requests.service';

/**
 * /api/v2/requests. Every GET but the download refuses HEAD (RevealsSecret): reads are audited and
 * may close a request whose time has come, and a HEAD must change nothing.
 */
@Controller('api/v2/requests')
export class RequestsController {
  constructor(private readonly requests: RequestsService) {}

  @Post()
  @Authenticated()
  @TakesRequestFiles('create')
  @ApiCreateRequest()
  create(
    @Body() body: CreateRequestBody,
    @Client() client: ClientInfo,
    @CurrentUser() user: AuthenticatedUser,
    @RequestUploads() uploads?: UploadBatch,
  ): Promise<RequestResponse> {
    return this.requests.create(body.request, client, user, uploads);
  }

  // Declared before ':url_token' so that the lists' names are not taken for tokens.
  @Get('active')
  @Authenticated()
  @RevealsSecret()
  @ApiListActiveRequests()
  active(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) response: Response): Promise<RequestResponse[]> {
    return this.list('active', query, client, user, response);
  }

  @Get('open')
  @Authenticated()
  @RevealsSecret()
  @ApiListOpenRequests()
  open(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) response: Response): Promise<RequestResponse[]> {
    return this.list('open', query, client, user, response);
  }

  @Get('ready')
  @Authenticated()
  @RevealsSecret()
  @ApiListReadyRequests()
  ready(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) response: Response): Promise<RequestResponse[]> {
    return this.list('ready', query, client, user, response);
  }

  @Get('closed')
  @Authenticated()
  @RevealsSecret()
  @ApiListClosedRequests()
  closed(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) response: Response): Promise<RequestResponse[]> {
    return this.list('closed', query, client, user, response);
  }

  @Get(':url_token')
  @Authenticated()
  @RevealsSecret('GET', 'DELETE')
  @ApiRetrieveRequest()
  retrieve(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser): Promise<AnsweredRequestResponse> {
    return this.requests.retrieve(urlToken, user, client);
  }

  @Get(':url_token/preview')
  @Authenticated()
  @RevealsSecret()
  @ApiPreviewRequest()
  preview(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser): Promise<PreviewResponse> {
    return this.requests.preview(urlToken, user, client);
  }

  @Get(':url_token/audit')
  @Authenticated()
  @RevealsSecret()
  @ApiGetRequestAudit()
  audit(@Param('url_token') urlToken: string, @Query() query: PageQuery, @CurrentUser() user: AuthenticatedUser): Promise<AuditLogResponse> {
    return this.requests.auditLog(urlToken, query.page, user);
  }

  @Get(':url_token/files/:link')
  @Public()
  @ApiDownloadRequestFile()
  async download(@Param('url_token') urlToken: string, @Param('link') link: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    await sendFile(request, response, await this.requests.openFile(urlToken, link));
  }

  @Patch(':url_token/respond')
  @Public()
  @TakesRequestFiles('respond')
  @ApiRespondToRequest()
  respond(
    @Param('url_token') urlToken: string,
    @Body() body: RespondBody,
    @Passphrase() passphrase: string | undefined,
    @Client() client: ClientInfo,
    @RequestUploads() uploads?: UploadBatch,
    @CheckedRequest() checked?: StoredRequest,
  ): Promise<PublicRequestResponse> {
    return this.requests.respond(urlToken, body.request, passphrase, client, uploads, checked);
  }

  @Delete(':url_token')
  @HttpCode(200)
  @Authenticated()
  @ApiCloseRequest()
  close(@Param('url_token') urlToken: string, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser): Promise<RequestResponse> {
    return this.requests.close(urlToken, user, client);
  }

  private async list(list: RequestList, query: PageQuery, client: ClientInfo, user: AuthenticatedUser, response: Response): Promise<RequestResponse[]> {
    return answerPage(response, await this.requests.list(user, list, query.page, client));
  }
}

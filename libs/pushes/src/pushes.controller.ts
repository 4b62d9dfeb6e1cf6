import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AuditLogResponse } from '@app/audit';
import { Authenticated, type AuthenticatedUser, CurrentUser } from '@app/auth';
import { answerPage, Client, type ClientInfo, PageQuery, RevealsSecret } from '@app/common';
import { sendFile, type UploadBatch } from '@app/files';
import { CreatesPush, Uploads } from './create-push.guard';
import { CreatePushBody, NotifyEmailsInput } from './dto/create-push.dto';
import { NotifyEmailsResponse, OwnedPushResponse, PreviewResponse, PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
import { Passphrase } from './dto/passphrase-query.dto';
import {
  ApiCreatePush,
  ApiDeletePush,
  ApiDownloadPushFile,
  ApiGetPushAudit,
  ApiListActivePushes,
  ApiListExpiredPushes,
  ApiNotifyEmails,
  ApiPreviewPush,
  ApiRetrievePush,
} from './pushes.openapi';
import { LinkMails } from './link-mails';
import { PushesService } from './pushes.service';


@Controller('api/v2/pushes')
export class PushesController {
  constructor(
    private readonly pushes: PushesService,
    private readonly linkMails: LinkMails,
  ) {}

  @Post()
  @CreatesPush('push')
  @ApiCreatePush()
  create(
    @Body() body: CreatePushBody,
    @Client() client: ClientInfo,
    @CurrentUser() user?: AuthenticatedUser,
    @Uploads() uploads?: UploadBatch,
  ): Promise<OwnedPushResponse> {
    return this.pushes.create(body.push, client, user, uploads);
  }

  // Declared before ':url_token' so that "active" and "expired" are not taken for tokens.
  @Get('active')
  @Authenticated()
  @ApiListActivePushes()
  async active(
    @Query() query: PageQuery,
    @Client() client: ClientInfo,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OwnedPushResponse[]> {
    return answerPage(response, await this.pushes.list(user, false, query.page, client));
  }

  @Get('expired')
  @Authenticated()
  @ApiListExpiredPushes()
  async expired(
    @Query() query: PageQuery,
    @Client() client: ClientInfo,
    @CurrentUser() user: AuthenticatedUser,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OwnedPushResponse[]> {
    return answerPage(response, await this.pushes.list(user, true, query.page, client));
  }

  @Get(':url_token')
  @RevealsSecret('GET', 'DELETE')
  @ApiRetrievePush()
  retrieve(
    @Param('url_token') urlToken: string,
    @Passphrase() passphrase: string | undefined,
    @Client() client: ClientInfo,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<RetrievedPushResponse> {
    return this.pushes.retrieve(urlToken, passphrase, client, user);
  }

  @Get(':url_token/preview')
  @ApiPreviewPush()
  preview(@Param('url_token') urlToken: string, @Client() client: ClientInfo): Promise<PreviewResponse> {
    return this.pushes.preview(urlToken, client);
  }

  @Get(':url_token/files/:link')
  @ApiDownloadPushFile()
  async download(
    @Param('url_token') urlToken: string,
    @Param('link') link: string,
    @Client() client: ClientInfo,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    // Express runs this for a HEAD too: that answer is the headers alone, and no download is audited.
    await sendFile(request, response, await this.pushes.openFile(urlToken, link, client, request.method === 'HEAD' ? 'headers' : 'download'));
  }

  @Get(':url_token/audit')
  @Authenticated()
  @ApiGetPushAudit()
  audit(@Param('url_token') urlToken: string, @Query() query: PageQuery, @CurrentUser() user: AuthenticatedUser): Promise<AuditLogResponse> {
    return this.pushes.auditLog(urlToken, query.page, user);
  }

  @Post(':url_token/notify_emails')
  @Authenticated()
  @ApiNotifyEmails()
  notifyEmails(
    @Param('url_token') urlToken: string,
    @Body() body: NotifyEmailsInput,
    @Client() client: ClientInfo,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<NotifyEmailsResponse> {
    return this.linkMails.send(urlToken, body, client, user);
  }

  @Delete(':url_token')
  @HttpCode(200)
  @ApiDeletePush()
  destroy(
    @Param('url_token') urlToken: string,
    @Passphrase() passphrase: string | undefined,
    @Client() client: ClientInfo,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<PushResponse> {
    return this.pushes.destroy(urlToken, passphrase, client, user);
  }
}

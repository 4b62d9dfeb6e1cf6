import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Authenticated, type AuthenticatedUser, CurrentUser } from '@app/auth';
import { Client, type ClientInfo, PageQuery, RevealsSecret } from '@app/common';
import type { UploadBatch } from '@app/files';
import {
  CreatesPush,
  type OwnedPushResponse,
  Passphrase,
  type PreviewResponse,
  PushesService,
  type PushResponse,
  type RetrievedPushResponse,
  Uploads,
} from '@app/pushes';
import { mapV1AuditLog, type V1AuditLogResponse } from './dto/v1-audit-log.dto';
import { passwordPush, V1FilePushBody, V1PasswordBody, V1UrlBody } from './dto/v1-create.dto';
import { mapV1Push } from './dto/v1-push.dto';
import { ApiV1Audit, ApiV1Create, ApiV1Delete, ApiV1List, ApiV1Preview, ApiV1Retrieve } from './api-v1.openapi';

/** The reference serves each v1 route under `/p` (text), `/f` (files) and `/r` (URLs) alike. */
const underEach = (path: string) => ['p', 'f', 'r'].map((collection) => `${collection}/${path}`);

/**
 * API v1's push routes, each the v2 call it stands for. `/f.json` and `/r.json` need a token (as
 * in the reference); so do audits and lists, as in v2. Retrieval, preview and deletion follow v2's
 * rules under every prefix: a recipient has no account. Lists answer without v2's Link header,
 * which v1 never had. Pushes carry v1's json_url (see mapV1Push).
 */
@Controller()
export class V1PushesController {
  constructor(private readonly pushes: PushesService) {}

  @Post('p.json')
  @CreatesPush('password')
  @ApiV1Create('password')
  async create(@Body() body: V1PasswordBody, @Client() client: ClientInfo, @CurrentUser() user?: AuthenticatedUser, @Uploads() uploads?: UploadBatch): Promise<OwnedPushResponse> {
    return mapV1Push(await this.pushes.create(passwordPush(body.password), client, user, uploads));
  }

  @Post('f.json')
  @Authenticated()
  @CreatesPush('file_push')
  @ApiV1Create('file_push')
  async createFile(@Body() body: V1FilePushBody, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Uploads() uploads?: UploadBatch): Promise<OwnedPushResponse> {
    return mapV1Push(await this.pushes.create({ ...body.file_push, kind: 'file' }, client, user, uploads));
  }

  @Post('r.json')
  @Authenticated()
  @CreatesPush('url')
  @ApiV1Create('url')
  async createUrl(@Body() body: V1UrlBody, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser, @Uploads() uploads?: UploadBatch): Promise<OwnedPushResponse> {
    return mapV1Push(await this.pushes.create({ ...body.url, kind: 'url' }, client, user, uploads));
  }

  // Declared before ':url_token.json' so that "active" and "expired" are not taken for tokens.
  @Get(underEach('active.json'))
  @Authenticated()
  @ApiV1List(false)
  async active(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser): Promise<OwnedPushResponse[]> {
    return (await this.pushes.list(user, false, query.page, client)).items.map(mapV1Push);
  }

  @Get(underEach('expired.json'))
  @Authenticated()
  @ApiV1List(true)
  async expired(@Query() query: PageQuery, @Client() client: ClientInfo, @CurrentUser() user: AuthenticatedUser): Promise<OwnedPushResponse[]> {
    return (await this.pushes.list(user, true, query.page, client)).items.map(mapV1Push);
  }

  @Get(underEach(':url_token.json'))
  @RevealsSecret('GET', 'DELETE')
  @ApiV1Retrieve()
  async retrieve(
    @Param('url_token') urlToken: string,
    @Passphrase() passphrase: string | undefined,
    @Client() client: ClientInfo,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<RetrievedPushResponse> {
    return mapV1Push(await this.pushes.retrieve(urlToken, passphrase, client, user));
  }

  @Get(underEach(':url_token/preview.json'))
  @ApiV1Preview()
  preview(@Param('url_token') urlToken: string, @Client() client: ClientInfo): Promise<PreviewResponse> {
    return this.pushes.preview(urlToken, client);
  }

  @Get(underEach(':url_token/audit.json'))
  @Authenticated()
  @ApiV1Audit()
  async audit(@Param('url_token') urlToken: string, @Query() query: PageQuery, @CurrentUser() user: AuthenticatedUser): Promise<V1AuditLogResponse> {
    return mapV1AuditLog(await this.pushes.auditLog(urlToken, query.page, user));
  }

  @Delete(underEach(':url_token.json'))
  @HttpCode(200)
  @ApiV1Delete()
  async destroy(
    @Param('url_token') urlToken: string,
    @Passphrase() passphrase: string | undefined,
    @Client() client: ClientInfo,
    @CurrentUser() user?: AuthenticatedUser,
  ): Promise<PushResponse> {
    return mapV1Push(await this.pushes.destroy(urlToken, passphrase, client, user));
  }
}

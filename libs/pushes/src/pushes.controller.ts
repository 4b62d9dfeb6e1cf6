import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Client, type ClientInfo } from '@app/common';
import { CreatePushBody } from './dto/create-push.dto';
import { OwnedPushResponse, PreviewResponse, PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
import { RetrieveQuery } from './dto/retrieve-push.dto';
import { NoStore } from './no-store.decorator';
import { PushesService } from './pushes.service';

@Controller('api/v2/pushes')
export class PushesController {
  constructor(private readonly pushes: PushesService) {}

  @Post()
  create(@Body() body: CreatePushBody, @Client() client: ClientInfo): Promise<OwnedPushResponse> {
    return this.pushes.create(body.push, client);
  }

  @Get(':url_token')
  @NoStore()
  retrieve(
    @Param('url_token') urlToken: string,
    @Query() query: RetrieveQuery,
    @Headers('x-passphrase') passphraseHeader: string | undefined,
    @Client() client: ClientInfo,
  ): Promise<RetrievedPushResponse> {
    return this.pushes.retrieve(urlToken, passphraseHeader ?? query.passphrase, client);
  }

  @Get(':url_token/preview')
  preview(@Param('url_token') urlToken: string, @Client() client: ClientInfo): Promise<PreviewResponse> {
    return this.pushes.preview(urlToken, client);
  }

  @Delete(':url_token')
  @HttpCode(200)
  destroy(
    @Param('url_token') urlToken: string,
    @Query() query: RetrieveQuery,
    @Headers('x-passphrase') passphraseHeader: string | undefined,
    @Client() client: ClientInfo,
  ): Promise<PushResponse> {
    return this.pushes.destroy(urlToken, passphraseHeader ?? query.passphrase, client);
  }
}

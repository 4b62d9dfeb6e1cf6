import { Module } from '@nestjs/common';
import { FilesModule } from '@app/files';
import { PagesModule } from '@app/pages';
import { RequestsModule } from '../requests.module';
import { RequestPagesOn } from './request-pages-on.guard';
import { RequesterPages } from './requester-pages';
import { RequesterPagesController, RequestFormRefusalFilter, SignedIn } from './requester-pages.controller';
import { ResponderPages } from './responder-pages';
import { ResponderPagesController, ResponderRefusalFilter } from './responder-pages.controller';

/**
 * The pages of secret requests, rendered by libs/pages' renderer. A module of their own, so that
 * the CLI (which has RequestsModule for its entity and sweep) and the OpenAPI document (built
 * from RequestsModule) have no pages; with PWP__ENABLE_REQUESTS off, each is the neutral 404.
 */
@Module({
  imports: [RequestsModule, PagesModule, FilesModule],
  controllers: [RequesterPagesController, ResponderPagesController],
  providers: [RequesterPages, RequestFormRefusalFilter, SignedIn, ResponderPages, ResponderRefusalFilter, RequestPagesOn],
})
export class RequestPagesModule {}

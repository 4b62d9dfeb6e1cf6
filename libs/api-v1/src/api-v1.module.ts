import { Module } from '@nestjs/common';
import { PushesModule } from '@app/pushes';
import { VersionModule } from '@app/version';
import { V1PushesController } from './v1-pushes.controller';
import { V1VersionController } from './v1-version.controller';

/**
 * Imported only while API v1 is on (PWP__API_V1__ENABLED): off, none of its handlers exists. Import
 * it before the pages' module: `/p/:url_token.json` must reach v1 before the page route `/p/:url_token` sees it.
 */
@Module({
  imports: [PushesModule, VersionModule],
  controllers: [V1PushesController, V1VersionController],
})
export class ApiV1Module {}

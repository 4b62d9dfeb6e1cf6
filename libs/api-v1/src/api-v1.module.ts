import { Module } from '@nestjs/common';
import { PushesModule } from '@app/pushes';
import { V1PushesController } from './v1-pushes.controller';

/** Import it before the pages' module: `/p/:url_token.json` must reach v1 before the page route `/p/:url_token` sees it. */
@Module({
  imports: [PushesModule],
  controllers: [V1PushesController],
})
export class ApiV1Module {}

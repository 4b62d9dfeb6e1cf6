import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { EventsModule } from '@app/events';
import { FilesModule } from '@app/files';
import { MetricsModule } from '@app/metrics';
import { FailedAttemptsModule } from '@app/rate-limit';
import { CreatePushRoutes } from './create-push.guard';
import { ExpirySweepService } from './expiry-sweep.service';
import { LinkMailQueue } from './link-mail-queue';
import { LinkMails } from './link-mails';
import { PushEvents } from './push-events';
import { PushDirectory } from './push-directory';
import { PushExpiry } from './push-expiry';
import { noStore } from './no-store.middleware';
import { PushEntity } from './push.entity';
import { PushesController } from './pushes.controller';
import { PushesRepository } from './pushes.repository';
import { PushesService } from './pushes.service';

@Module({
  imports: [TypeOrmModule.forFeature([PushEntity]), DiscoveryModule, AuditModule, EventsModule, FailedAttemptsModule, FilesModule, MetricsModule],
  controllers: [PushesController],
  providers: [PushesRepository, PushesService, PushEvents, PushExpiry, PushDirectory, LinkMails, LinkMailQueue, ExpirySweepService, CreatePushRoutes],
  // FilesModule too: CreatesPush's guard, used by API v1's controllers and the pages as well, reads uploads through MultipartUploads.
  exports: [PushesService, PushExpiry, PushDirectory, ExpirySweepService, CreatePushRoutes, FilesModule],
})
export class PushesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // By the controller's path rather than forRoutes(PushesController), which would add a router layer per route.
    consumer.apply(noStore).forRoutes({ path: 'api/v2/pushes{/*path}', method: RequestMethod.ALL });
  }
}

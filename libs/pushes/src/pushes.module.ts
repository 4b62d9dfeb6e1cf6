import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { EventsModule } from '@app/events';
import { FilesModule } from '@app/files';
import { MetricsModule } from '@app/metrics';
import { FailedAttemptsModule } from '@app/rate-limit';
import { ExpirySweepService } from './expiry-sweep.service';
import { noStore } from './no-store.middleware';
import { PushEntity } from './push.entity';
import { PushesController } from './pushes.controller';
import { PushesRepository } from './pushes.repository';
import { PushesService } from './pushes.service';

@Module({
  imports: [TypeOrmModule.forFeature([PushEntity]), AuditModule, EventsModule, FailedAttemptsModule, FilesModule, MetricsModule],
  controllers: [PushesController],
  providers: [PushesRepository, PushesService, ExpirySweepService],
  // FilesModule too: CreatesPush's guard, used by API v1's controllers as well, reads uploads into FileAttachments.
  exports: [PushesService, ExpirySweepService, FilesModule],
})
export class PushesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // By the controller's path rather than forRoutes(PushesController), which would add a router layer per route.
    consumer.apply(noStore).forRoutes({ path: 'api/v2/pushes{/*path}', method: RequestMethod.ALL });
  }
}

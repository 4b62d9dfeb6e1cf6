import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { FilesModule } from '@app/files';
import { MetricsModule } from '@app/metrics';
import { RedisModule } from '@app/redis';
import { ExpirySweepService } from './expiry-sweep.service';
import { noStore } from './no-store.middleware';
import { PassphraseAttempts } from './passphrase-attempts';
import { PushEntity } from './push.entity';
import { PushesController } from './pushes.controller';
import { PushesRepository } from './pushes.repository';
import { PushesService } from './pushes.service';

@Module({
  imports: [TypeOrmModule.forFeature([PushEntity]), AuditModule, FilesModule, MetricsModule, RedisModule],
  controllers: [PushesController],
  providers: [PushesRepository, PushesService, PassphraseAttempts, ExpirySweepService],
  exports: [PushesService, ExpirySweepService],
})
export class PushesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(noStore).forRoutes(PushesController);
  }
}

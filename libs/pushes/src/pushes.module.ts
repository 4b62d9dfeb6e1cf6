import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { ExpirySweepService } from './expiry-sweep.service';
import { PassphraseAttempts } from './passphrase-attempts';
import { PushEntity } from './push.entity';
import { PushesController } from './pushes.controller';
import { PushesRepository } from './pushes.repository';
import { PushesService } from './pushes.service';

@Module({
  imports: [TypeOrmModule.forFeature([PushEntity]), AuditModule],
  controllers: [PushesController],
  providers: [PushesRepository, PushesService, PassphraseAttempts, ExpirySweepService],
  exports: [PushesService, ExpirySweepService],
})
export class PushesModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EmailQuotaEntity } from './email-quota.entity';
import { OutboxEventEntity } from './outbox-event.entity';
import { Outbox } from './outbox';

@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, EmailQuotaEntity])],
  providers: [Outbox],
  exports: [Outbox],
})
export class EventsModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxEventEntity } from './outbox-event.entity';
import { Outbox } from './outbox';

@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity])],
  providers: [Outbox],
  exports: [Outbox],
})
export class EventsModule {}

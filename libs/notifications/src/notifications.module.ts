import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '@app/audit';
import { AuthModule } from '@app/auth';
import { SETTINGS, Settings } from '@app/config';
import { I18nModule } from '@app/i18n';
import { MetricsModule } from '@app/metrics';
import { Channels } from './deliveries/channels';
import { DeliveriesRepository } from './deliveries/deliveries.repository';
import { DeliveryRecords } from './deliveries/delivery-records';
import { DeliveryEntity } from './deliveries/delivery.entity';
import { EndpointHealth } from './deliveries/endpoint-health';
import { NotificationWorker } from './deliveries/notification-worker';
import { NotificationWorkerScheduler } from './deliveries/notification-worker.scheduler';
import { Mailer } from './email/mailer';
import { WebhookSender } from './webhooks/webhook-sender';
import { WebhookEntity } from './webhooks/webhook.entity';
import { WebhooksController } from './webhooks/webhooks.controller';
import { WebhooksRepository } from './webhooks/webhooks.repository';
import { WebhooksService } from './webhooks/webhooks.service';

/** The webhooks API and the worker's parts (the server runs the worker on its timetable: NotificationWorkerModule). */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEntity, DeliveryEntity]), AuditModule, AuthModule, MetricsModule, I18nModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    DeliveriesRepository,
    Mailer,
    { provide: WebhookSender, inject: [SETTINGS], useFactory: (settings: Settings) => new WebhookSender(settings.webhooks) },
    Channels,
    EndpointHealth,
    NotificationWorker,
    DeliveryRecords,
  ],
  exports: [NotificationWorker, DeliveryRecords],
})
export class NotificationsModule {}

/** Runs the outbox worker on its timetable; the server imports it, the CLI does not. */
@Module({
  imports: [ScheduleModule.forRoot(), NotificationsModule],
  providers: [NotificationWorkerScheduler],
})
export class NotificationWorkerModule {}

/**
 * Notifications: what leaves the service when something happens to a push, never inside the
 * request that did it. The owners' endpoints and their API (./webhooks), the worker that drains
 * the outbox into deliveries and attempts them across replicas (./deliveries), and the channels:
 * signed, SSRF-safe webhooks (./webhooks) and mail through SMTP (./email). Nothing here reads a
 * push's payload.
 */
export { NotificationsModule, NotificationWorkerModule } from './notifications.module';
export { NotificationWorker, type WorkerRound } from './deliveries/notification-worker';
export { DeliveryEntity } from './deliveries/delivery.entity';
export { DeliveryRecords, DELIVERY_VIEWS, DELIVERY_PAGE_SIZE, type DeliveryRecord, type DeliveryView } from './deliveries/delivery-records';
export { WebhookEntity } from './webhooks/webhook.entity';
export { Mailer, MailDeliveryError, type MailReceipt, type OutgoingMail } from './email/mailer';
export { renderEmail, type RenderedEmail } from './email/email-templates';
export { newWebhookSecret, signWebhook, type WebhookSignatureHeaders } from './webhooks/webhook-signature';
export { isRefusedAddress, refusedWebhookUrl } from './webhooks/webhook-destination';
export { type DeliveryResult, WebhookSender } from './webhooks/webhook-sender';

/**
 * Events: what happened to a push (created, viewed, expired, a passphrase failed, a file
 * downloaded; a link mail requested), recorded in the outbox table in the transaction of the
 * change itself. A low library: pushes records here and never imports mail or HTTP clients;
 * libs/notifications drains the outbox.
 */
export * from './events';
export { EventsModule } from './events.module';
export { LINK_MAIL_RECIPIENTS, Outbox } from './outbox';
export { OutboxEventEntity } from './outbox-event.entity';

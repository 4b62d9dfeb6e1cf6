/**
 * Notifications: what leaves the service when something happens to a push. The email channel
 * (SMTP through nodemailer, and the templates of the recipients' and the owners' mails) lives in
 * ./email; nothing here reads the payload of a push.
 */
export { Mailer, MailDeliveryError, type MailReceipt, type OutgoingMail } from './email/mailer';
export {
  renderEmail,
  OWNER_EVENTS,
  type EmailContexts,
  type EmailName,
  type ExpiryReason,
  type OwnerEvent,
  type OwnerEventEmail,
  type PushLinkEmail,
  type RenderedEmail,
} from './email/email-templates';

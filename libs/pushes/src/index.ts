/**
 * Pushes: creating, retrieving, previewing and expiring secrets. The service holds the lifecycle;
 * the creation rules (creation-rules.ts), link mails (LinkMails) and expiry (PushExpiry, used by
 * the sweep) are parts of their own.
 */
export * from './pushes.module';
export { PushesService } from './pushes.service';
export { PushExpiry } from './push-expiry';
export { PushDirectory, DIRECTORY_PAGE_SIZE, type PushDirectoryPage } from './push-directory';
export type { PushMetadata } from './pushes.repository';
export { PushEntity } from './push.entity';
export { ExpirySweepService } from './expiry-sweep.service';
export { ExpirySweepModule } from './expiry-sweep.module';
export type { PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
// For API v1 (@app/api-v1), which translates its routes onto the same calls as v2's.
export { OwnedPushResponse, PreviewResponse, RetrievedPushResponse as RetrievedPushResponseDto, PushResponse as PushResponseDto } from './dto/push-response.dto';
export { CreatePushBody, PushInput, WrappedPush } from './dto/create-push.dto';
export { Passphrase, passphraseOf } from './dto/passphrase-query.dto';
export { CreatesPush, CreatePushRoutes, Uploads } from './create-push.guard';
// For the pages, which offer the forms only to those the rules let create.
export { anonymousRefusal } from './creation-rules';
// For the recipient's page, which says how long a push has left in the same words; and for other
// things that expire by the same rule (a lifetime from creation, elapsed from its last instant on).
export { describeLifetime, expiresAtFor, hasElapsed, LIFETIME_BY_DURATION } from './expiry';
// For secret requests (@app/requests), which take their message and answer within a push's limits, and answer no-store as pushes do.
export { TEXT_PAYLOAD_MAX } from './dto/create-push.dto';
export { noStore } from './no-store.middleware';
// For secret requests, whose create mails their link to the responders by the same rules (notify_emails_to).
export { LinkMailQueue, type LinkMailEcho, type LinkMailRequest, type LinkMailTarget } from './link-mail-queue';
export { NOTIFY_MESSAGES } from './notify-emails';

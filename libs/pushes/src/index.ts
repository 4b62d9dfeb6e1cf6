/** Pushes: creating, retrieving, previewing and expiring secrets. */
export * from './pushes.module';
export { PushesService } from './pushes.service';
export { PushEntity } from './push.entity';
export { ExpirySweepService } from './expiry-sweep.service';
export { ExpirySweepModule } from './expiry-sweep.module';
export type { PushResponse, RetrievedPushResponse } from './dto/push-response.dto';
// For API v1 (@app/api-v1), which translates its routes onto the same calls as v2's.
export { OwnedPushResponse, PreviewResponse, RetrievedPushResponse as RetrievedPushResponseDto, PushResponse as PushResponseDto } from './dto/push-response.dto';
export { CreatePushBody, PushInput, WrappedPush } from './dto/create-push.dto';
export { PassphraseQuery, passphraseOf } from './dto/passphrase-query.dto';
export { CreatesPush, Uploads } from './create-push.guard';
// For the recipient's page, which says how long a push has left in the same words.
export { describeLifetime } from './expiry';

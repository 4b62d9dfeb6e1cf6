/**
 * Authentication: users, API tokens (random, shown once, stored as SHA-256, optionally expiring),
 * the bearer and legacy header-pair strategies, the global guard with its access decorators, the
 * pages' sessions (a row per signed-in browser), who a person signing in is (SignInService: a
 * password, or single sign-on; and whether a second step is due, SecondStep), two-factor
 * authentication (two-factor/: TOTP, recovery codes, the second step's challenges,
 * PWP__REQUIRE_MFA), each person's security log (SecurityLog), and the OpenID Connect client (oidc/).
 */
export * from './access.decorators';
export { presentsCredentials, TWO_FACTOR_REQUIRED } from './api-auth.guard';
export * from './auth.openapi';
export * from './account.errors';
export * from './auth.module';
export type { AuthenticatedUser } from './authenticated-user';
export { checkOwner, isOwner, type Owned } from './ownership';
export { ownerWebhooksJoin, WebhookOwners } from './webhook-owners';
export {
  UsersService,
  DEFAULT_TOKEN_NAME,
  TOKEN_LIFETIMES_DAYS,
  type IssuedToken,
  type SignInMethod,
  type TokenSummary,
  type UserSummary,
  PASSWORD_LENGTH,
} from './users.service';
export { SignInService, type ProviderIdentity, type SecondStepDue, type SignInMethodUsed, type SignInOutcome, type SignInRefusal } from './sign-in.service';
export { SecondStep } from './second-step';
export { UnseenWork } from './unseen-work';
export { SignUpService, type SignUpInput, type SignUpOutcome } from './sign-up.service';
export { FirstRunService, type FirstRunInput } from './first-run.service';
export { RecoveryService, type PasswordReset } from './recovery.service';
export { ProfileService, type Profile } from './profile.service';
export { PeopleAdministration, PEOPLE_PAGE_SIZE, PERSON_ACTIONS, type Administrator, type PeoplePage, type PersonAction, type PersonSummary } from './people-administration';
export { AccountFormError, type AccountField, type AccountFieldError } from './account-rules';
export { LOCKOUT, type ClientSeen } from './lockout';
export { LINK_LIFETIMES_MS } from './account-mails';
export {
  TwoFactorService,
  TWO_FACTOR_LIMITS,
  type ChallengeAnswer,
  type Proof,
  type SetupKey,
  type TwoFactorClient,
  type TwoFactorStatus,
} from './two-factor/two-factor.service';
export type { PendingChallenge } from './two-factor/two-factor.repository';
export {
  SecurityLog,
  SECURITY_EVENT_KINDS,
  type SecurityEvent,
  type SecurityEventDetail,
  type SecurityEventInput,
  type SecurityEventKind,
  type SecurityEventPage,
  type SecurityLogQuery,
  type InstanceSecurityQuery,
  securityLogStatement,
} from './security-log';
export { SecurityEventEntity } from './security-event.entity';
export { OidcModule } from './oidc/oidc.module';
export { OidcClient, SingleSignOnFailedError, SingleSignOnUnavailableError, type PendingSignIn } from './oidc/oidc-client';
export { SessionsService, REMEMBER_MS, type SessionOptions } from './sessions.service';
export { SessionEntity } from './session.entity';
export { UserEntity } from './user.entity';
export { ApiTokenEntity } from './api-token.entity';

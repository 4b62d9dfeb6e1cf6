import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { AccountsRepository } from './accounts.repository';
import { type ClientSeen, Lockout } from './lockout';
import { SecondStep } from './second-step';
import { SecurityLog } from './security-log';
import { UnseenWork } from './unseen-work';
import type { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { emailAddress, isAsciiEmail, UsersService } from './users.service';

/** What an OpenID Provider said about the person, from an ID token it signed for us (and its userinfo). */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email?: string;
  /** The provider vouches that the person controls `email`. */
  emailVerified: boolean;
}

/**
 * Why a person is not signed in. Each is said to them as it is, but none depends on whether an
 * account exists with their email, except `no-account`, said only when auto provisioning is off.
 */
export type SignInRefusal =
  | 'wrong-password'
  | 'password-sign-in-off'
  | 'disabled'
  | 'unconfirmed'
  | 'unverified-email'
  | 'domain-not-allowed'
  | 'non-ascii-email'
  | 'no-account'
  | 'linked-elsewhere';

/** How a session came to start, for the security log. */
export type SignInMethodUsed = 'password' | 'sso' | 'sign_up' | 'first_run' | 'reset' | 'two_factor';

/**
 * A right password, and a second step due (SecondStep.isDue) before the person is signed in: no
 * session yet. What the pages keep between the two steps is theirs to choose (a sealed cookie, as
 * for a single sign-on under way), never the password.
 */
export interface SecondStepDue {
  user: AuthenticatedUser;
}

export type SignInOutcome = { user: AuthenticatedUser } | { secondStep: SecondStepDue } | { refused: SignInRefusal };
/** A single sign-on asks no second step: the provider's own policy applies. */
export type IdentitySignInOutcome = Exclude<SignInOutcome, { secondStep: SecondStepDue }>;

/** OpenID Connect Core 1.0, 2: a `sub` is at most 255 ASCII characters. */
const SUBJECT = /^[\x21-\x7e]{1,255}$/;

/**
 * Who a person signing in on the pages is: by email and password, or by an identity an OpenID
 * Provider vouches for. Both ways end in the same account rules (a disabled user is refused
 * either way); the pages only carry the outcome to a session or a refusal page.
 *
 * Single sign-on finds a user by the provider's (issuer, sub) first; otherwise it links the
 * account with the provider's email, only when the provider says that email is verified (an
 * unverified one could be anybody's), or creates one when auto provisioning allows. Only an
 * address of plain ASCII is linked or provisioned: beyond it, distinct addresses look alike (a
 * Kelvin sign for a `k`) and databases' collations equate some of them, so such a person signs in
 * only when their (issuer, sub) is already an account's. Emails are compared with their ASCII
 * letters lower-cased and nothing else folded. The allowed email domains are checked on every
 * sign-in, so narrowing them shuts out those already linked.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly users: UsersService,
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
    private readonly secondStep: SecondStep,
    private readonly lockout: Lockout,
    private readonly log: SecurityLog,
    private readonly accounts: AccountsRepository,
    private readonly unseen: UnseenWork,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  get passwordSignIn(): boolean {
    return this.settings.signIn.passwordSignIn;
  }

  /**
   * Email and password. A wrong password, an unknown address and a locked account get the same
   * refusal after the same Argon2 work; the account's state (disabled, unconfirmed) is said only
   * to someone who gave its password. A wrong password counts toward the lockout, unseen: what an
   * account's refusal writes (the security log, the lockout's count) is not waited for, as an
   * unknown address writes nothing (UnseenWork).
   */
  async withPassword(email: string, password: string, client: ClientSeen): Promise<SignInOutcome> {
    if (!this.passwordSignIn) return { refused: 'password-sign-in-off' };
    const { account, valid } = await this.users.verifyPassword(email, password);
    if (!account?.passwordHash) return { refused: 'wrong-password' };
    if (await this.lockout.isLocked(account)) {
      this.unseen.start('A locked sign-in', () => this.log.record({ userId: account.id, email: account.email, kind: 'sign_in_failed', client, detail: { locked: true } }));
      return { refused: 'wrong-password' };
    }
    if (!valid) {
      this.unseen.start('A failed sign-in', () => this.lockout.failed(account, client, 'sign_in_failed'));
      return { refused: 'wrong-password' };
    }
    if (account.disabledAt !== null) return { refused: 'disabled' };
    if (this.settings.accounts.accountEmails && account.confirmedAt === null) return { refused: 'unconfirmed' };
    const person = authenticatedUser(account);
    return (await this.secondStep.isDue(person)) ? { secondStep: { user: person } } : { user: person };
  }

  /**
   * A session has started for the person: the lockout forgets their failures, their last sign-in
   * is noted and the security log says how. PageSession.signIn calls it for every session.
   */
  async completed(user: AuthenticatedUser, client: ClientSeen, method: SignInMethodUsed): Promise<void> {
    await this.repository.transaction(async (manager) => {
      await this.accounts.updateUser(user.id, { failedAttempts: 0, lastSignInAt: this.clock.now(), lastSignInIp: client.ip.slice(0, 45) }, manager);
      await this.log.record({ userId: user.id, email: user.email, kind: 'sign_in', client, detail: { method } }, manager);
    });
  }

  /** A wrong second-step code: logged as two_factor_failed and counted toward the lockout, as a wrong password is. */
  async failedSecondStep(user: AuthenticatedUser, client: ClientSeen): Promise<void> {
    const account = await this.accounts.findUser(user.id);
    if (account) await this.lockout.failed(account, client, 'two_factor_failed');
  }

  async signedOut(user: AuthenticatedUser, client: ClientSeen): Promise<void> {
    await this.log.record({ userId: user.id, email: user.email, kind: 'sign_out', client });
  }

  withIdentity(identity: ProviderIdentity): Promise<IdentitySignInOutcome> {
    return this.signInAs(identity, false);
  }

  /**
   * An account whose address was never confirmed, just linked by a provider that vouches for the
   * address: whoever signed it up did not prove it theirs, and may not be its owner (an attacker
   * can sign up someone's address before that person first signs in by single sign-on, then wait
   * for them to press the confirmation link). So the password chosen at that sign-up goes, with
   * the confirmation links mailed for it, and the address counts as confirmed. The owner sets a
   * password, if they want one, by a reset.
   */
  private async claimUnconfirmed(user: UserEntity, now: number): Promise<void> {
    await this.accounts.transaction(async (manager) => {
      await this.accounts.updateUser(user.id, { passwordHash: null, confirmedAt: now, updatedAt: now }, manager);
      await this.accounts.deleteTokens(user.id, 'confirmation', manager);
      await this.accounts.endSessions(user.id, manager);
      await this.log.record({ userId: user.id, email: user.email, kind: 'email_confirmed', detail: { by: 'sso', password_dropped: user.passwordHash !== null } }, manager);
    });
    user.passwordHash = null;
    user.confirmedAt = now;
  }

  private async signInAs(identity: ProviderIdentity, retried: boolean): Promise<IdentitySignInOutcome> {
    const oidc = this.settings.signIn.oidc;
    if (!oidc || !SUBJECT.test(identity.subject)) return { refused: 'no-account' };
    const email = identity.emailVerified && identity.email !== undefined ? emailAddress(identity.email) : null;
    if (oidc.allowedEmailDomains.length > 0) {
      if (email === null) return { refused: 'unverified-email' };
      if (!oidc.allowedEmailDomains.includes(email.slice(email.lastIndexOf('@') + 1))) return { refused: 'domain-not-allowed' };
    }
    const known = await this.repository.findByIdentity(identity);
    if (known) return known.disabledAt === null ? { user: authenticatedUser(known) } : { refused: 'disabled' };
    if (email === null) return { refused: 'unverified-email' };
    if (!isAsciiEmail(email)) return { refused: 'non-ascii-email' };
    const now = this.clock.now();
    const existing = await this.repository.findByEmail(email);
    if (existing) {
      if (existing.disabledAt !== null) return { refused: 'disabled' };
      if (!(await this.repository.linkIdentity(existing.id, identity, now))) return { refused: 'linked-elsewhere' };
      if (existing.confirmedAt === null) await this.claimUnconfirmed(existing, now);
      return { user: authenticatedUser(existing) };
    }
    if (!oidc.autoProvision) return { refused: 'no-account' };
    try {
      const created = await this.repository.transaction(async (manager) => {
        const user = await this.repository.insertUser(
          { email, passwordHash: null, hasWebhooks: false, oidcIssuer: identity.issuer, oidcSubject: identity.subject, confirmedAt: now, createdAt: now, updatedAt: now },
          manager,
        );
        await this.log.record({ userId: user.id, email, kind: 'account_created', detail: { by: 'sso' } }, manager);
        return user;
      });
      return { user: authenticatedUser(created) };
    } catch (error) {
      // Two first sign-ins at once (the same person in two tabs): the other one created the account.
      if (retried) throw error;
      return this.signInAs(identity, true);
    }
  }
}

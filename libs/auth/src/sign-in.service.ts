import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { SecondStep } from './second-step';
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
  | 'unverified-email'
  | 'domain-not-allowed'
  | 'non-ascii-email'
  | 'no-account'
  | 'linked-elsewhere';

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
    @InjectSettings() private readonly settings: Settings,
  ) {}

  get passwordSignIn(): boolean {
    return this.settings.signIn.passwordSignIn;
  }

  async withPassword(email: string, password: string): Promise<SignInOutcome> {
    if (!this.passwordSignIn) return { refused: 'password-sign-in-off' };
    const user = await this.users.checkPassword(email, password);
    if (!user) return { refused: 'wrong-password' };
    if (user.disabled) return { refused: 'disabled' };
    const person = authenticatedUser(user);
    return (await this.secondStep.isDue(person)) ? { secondStep: { user: person } } : { user: person };
  }

  withIdentity(identity: ProviderIdentity): Promise<IdentitySignInOutcome> {
    return this.signInAs(identity, false);
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
      return (await this.repository.linkIdentity(existing.id, identity, now)) ? { user: authenticatedUser(existing) } : { refused: 'linked-elsewhere' };
    }
    if (!oidc.autoProvision) return { refused: 'no-account' };
    try {
      const created = await this.repository.insertUser({ email, passwordHash: null, hasWebhooks: false, oidcIssuer: identity.issuer, oidcSubject: identity.subject, confirmedAt: now, createdAt: now, updatedAt: now });
      return { user: authenticatedUser(created) };
    } catch (error) {
      // Two first sign-ins at once (the same person in two tabs): the other one created the account.
      if (retried) throw error;
      return this.signInAs(identity, true);
    }
  }
}

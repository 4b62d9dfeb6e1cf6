import { Injectable } from '@nestjs/common';
import { Clock, MINUTE_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { AccountMails } from './account-mails';
import { AccountFormError, newPasswordErrors, personEmail } from './account-rules';
import { AccountsRepository } from './accounts.repository';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import type { ClientSeen } from './lockout';
import { SecurityLog } from './security-log';
import type { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UnseenWork } from './unseen-work';
import { hashToken, UsersService } from './users.service';

export interface SignUpInput {
  email: string;
  password: string;
  passwordConfirmation: string;
}

/** A sign-up's result: the new account, to sign in at once (no account emails), or "check your mail", whatever happened. */
export type SignUpOutcome = { user: AuthenticatedUser } | { checkMail: true };

/** How often a confirmation mail may be sent again to one account. */
const RESEND_EVERY_MS = MINUTE_MS;

/**
 * Accounts people make themselves at /users/sign_up, and the confirmation of an address (a new
 * account's, or a new one for an existing account) by the mailed link. With account emails on,
 * a sign-up answers "check your mail" whether or not the address has an account, after the same
 * Argon2 work; without them, a taken address gets a plain refusal (nothing can be mailed).
 */
@Injectable()
export class SignUpService {
  constructor(
    private readonly users: UsersService,
    private readonly usersRepository: UsersRepository,
    private readonly repository: AccountsRepository,
    private readonly mails: AccountMails,
    private readonly log: SecurityLog,
    private readonly unseen: UnseenWork,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** Sign-up is offered: not turned off, and people can sign in with the password they choose. */
  get open(): boolean {
    const { accounts, signIn } = this.settings;
    return !accounts.disableSignups && !accounts.disableLogins && signIn.passwordSignIn;
  }

  /** Addresses are confirmed by mailed links (account emails on, and sign-in on). */
  get confirmsByMail(): boolean {
    return this.settings.accounts.accountEmails && !this.settings.accounts.disableLogins;
  }

  async signUp(input: SignUpInput, client: ClientSeen): Promise<SignUpOutcome> {
    const email = personEmail(this.settings, input.email);
    const errors = { ...(email === null ? { email: 'email-invalid' as const } : {}), ...newPasswordErrors(input.password, input.passwordConfirmation) };
    if (email === null || Object.keys(errors).length > 0) throw new AccountFormError(errors);
    // Hashed before anything is known of the address, so a taken one costs the same time.
    const passwordHash = await this.users.hashPassword(input.password);
    if (this.mails.enabled) {
      // "Check your mail" either way, and at once: the account (or nothing, the address being
      // taken) is made unseen, so the answer's timing does not say which (UnseenWork).
      this.unseen.start('A sign-up', () => this.create(email, passwordHash, client));
      return { checkMail: true };
    }
    const user = await this.create(email, passwordHash, client);
    if (!user) throw new AccountFormError({ email: 'email-taken' });
    return { user: authenticatedUser(user) };
  }

  /** Makes the account, with its confirmation mailed when account emails are on; null when the address is taken. */
  private async create(email: string, passwordHash: string, client: ClientSeen): Promise<UserEntity | null> {
    if (await this.repository.findByEmail(email)) return null;
    const now = this.clock.now();
    try {
      return await this.repository.transaction(async (manager) => {
        const created = await this.usersRepository.insertUser(
          { email, passwordHash, hasWebhooks: false, confirmedAt: this.mails.enabled ? null : now, createdAt: now, updatedAt: now },
          manager,
        );
        await this.log.record({ userId: created.id, email, kind: 'account_created', client, detail: { by: 'sign_up' } }, manager);
        if (this.mails.enabled) await this.mails.sendLink(manager, created, 'confirmation', email, email);
        return created;
      });
    } catch (error) {
      // The same address signed up at the same moment (the unique index).
      if (await this.repository.findByEmail(email)) return null;
      throw error;
    }
  }

  /** Whether a confirmation link still works (its page offers the button only then); uses nothing. */
  async confirmationWorks(token: string): Promise<boolean> {
    return (await this.repository.findToken(hashToken(token), 'confirmation', this.clock.now())) !== null;
  }

  /**
   * Confirms the address the link was mailed to: a new account's, or the new address of an
   * account (which then takes it; the old address is told). Once; false when the link is unknown,
   * used, expired, or its address was taken meanwhile.
   */
  async confirm(token: string, client: ClientSeen): Promise<boolean> {
    const found = await this.repository.findToken(hashToken(token), 'confirmation', this.clock.now());
    if (!found?.email) return false;
    const email = found.email;
    return this.repository.transaction(async (manager) => {
      if (!(await this.repository.useToken(found.id, manager))) return false;
      const user = await this.repository.findUser(found.userId, manager);
      if (!user) return false;
      const now = this.clock.now();
      if (email === user.unconfirmedEmail) {
        if (await this.repository.findByEmail(email, manager)) return false;
        await this.repository.updateUser(user.id, { email, unconfirmedEmail: null, confirmedAt: user.confirmedAt ?? now, updatedAt: now }, manager);
        // A reset link mailed to the old address no longer works.
        await this.repository.deleteTokens(user.id, 'reset', manager);
        await this.log.record({ userId: user.id, email, kind: 'email_changed', client, detail: { previous: user.email } }, manager);
        await this.log.record({ userId: user.id, email, kind: 'email_confirmed', client }, manager);
        await this.mails.emailChanged(manager, user, user.email, email);
        return true;
      }
      if (email !== user.email || user.confirmedAt !== null) return false;
      await this.repository.updateUser(user.id, { confirmedAt: now, updatedAt: now }, manager);
      await this.log.record({ userId: user.id, email, kind: 'email_confirmed', client }, manager);
      return true;
    });
  }

  /** Mails a new confirmation link to an account still waiting for one; says nothing either way, unseen (UnseenWork). */
  resendConfirmation(given: string): void {
    this.unseen.start('A confirmation resend', async () => {
      const email = personEmail(this.settings, given);
      const user = email === null || !this.mails.enabled ? null : await this.repository.findByEmail(email);
      if (!user || user.confirmedAt !== null || user.disabledAt !== null) return;
      const now = this.clock.now();
      const issuedAt = await this.repository.tokenIssuedAt(user.id, 'confirmation', now);
      if (issuedAt !== undefined && now - issuedAt < RESEND_EVERY_MS) return;
      await this.repository.transaction((manager) => this.mails.sendLink(manager, user, 'confirmation', user.email, user.email));
    });
  }
}

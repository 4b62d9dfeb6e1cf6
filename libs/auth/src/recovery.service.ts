import { Injectable } from '@nestjs/common';
import { Clock, MINUTE_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { AccountMails } from './account-mails';
import { AccountFormError, newPasswordErrors } from './account-rules';
import type { AccountTokenPurpose } from './account-token.entity';
import { AccountsRepository } from './accounts.repository';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { type ClientSeen, LOCKOUT } from './lockout';
import { SecondStep } from './second-step';
import { type SecurityEventDetail, SecurityLog } from './security-log';
import { UnseenWork } from './unseen-work';
import type { UserEntity } from './user.entity';
import { emailAddress, hashToken, UsersService } from './users.service';

/** A reset's result: the person, and whether a second step is still due before they are signed in. */
export interface PasswordReset {
  user: AuthenticatedUser;
  secondStepDue: boolean;
}

/** How often one account may be sent a reset or unlock mail: a form cannot be used to flood a mailbox. */
const MAIL_EVERY_MS = MINUTE_MS;

/**
 * Getting back in by mail (account emails on): a password reset link (6 hours, once) and an
 * unlock link for a locked account. Asking for either answers the same whether the address has
 * an account or not; the links are 256-bit tokens stored hashed and used once.
 */
@Injectable()
export class RecoveryService {
  constructor(
    private readonly users: UsersService,
    private readonly repository: AccountsRepository,
    private readonly mails: AccountMails,
    private readonly log: SecurityLog,
    private readonly secondStep: SecondStep,
    private readonly unseen: UnseenWork,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** Resets and unlocks by mail exist: account emails on, and sign-in with a password. */
  get available(): boolean {
    const { accounts, signIn } = this.settings;
    return accounts.accountEmails && !accounts.disableLogins && signIn.passwordSignIn;
  }

  /**
   * Mails a reset link to the account of this address, if there is one (and it is not disabled),
   * unseen: the caller's answer does not wait for it, so its timing says nothing (UnseenWork).
   */
  requestReset(given: string, client: ClientSeen): void {
    this.unseen.start('A reset request', () => this.mailReset(given, client));
  }

  /** Mails a reset link to the account of this address now, if there is one (and it is not disabled): an administrator's action, seen. */
  async mailReset(given: string, client: ClientSeen, detail?: SecurityEventDetail): Promise<void> {
    const user = await this.mailable(given, 'reset');
    if (!user) return;
    await this.repository.transaction(async (manager) => {
      await this.mails.sendLink(manager, user, 'reset', user.email);
      await this.log.record({ userId: user.id, email: user.email, kind: 'password_reset_requested', client, detail }, manager);
    });
  }

  /** Mails a new unlock link to the account of this address, if it is locked; unseen, as requestReset. */
  requestUnlock(given: string): void {
    this.unseen.start('An unlock request', async () => {
      const user = await this.mailable(given, 'unlock');
      if (!user || user.lockedAt === null || this.clock.now() - user.lockedAt >= LOCKOUT.unlockAfterMs) return;
      await this.repository.transaction((manager) => this.mails.sendLink(manager, user, 'unlock', user.email));
    });
  }

  /** Whether a link of this purpose still works (its page offers its form only then); uses nothing. */
  async linkWorks(token: string, purpose: 'reset' | 'unlock'): Promise<boolean> {
    return (await this.repository.findToken(hashToken(token), purpose, this.clock.now())) !== null;
  }

  /**
   * Sets a new password with a reset link, once. The mail proved the address, so the account is
   * confirmed and unlocked too; every session of the account ends. Null when the link does not work.
   */
  async reset(token: string, password: string, confirmation: string, client: ClientSeen): Promise<PasswordReset | null> {
    const errors = newPasswordErrors(password, confirmation);
    if (Object.keys(errors).length > 0) throw new AccountFormError(errors);
    const found = await this.repository.findToken(hashToken(token), 'reset', this.clock.now());
    if (!found) return null;
    const passwordHash = await this.users.hashPassword(password);
    const user = await this.repository.transaction(async (manager) => {
      if (!(await this.repository.useToken(found.id, manager))) return null;
      const account = await this.repository.findUser(found.userId, manager);
      if (!account || account.disabledAt !== null) return null;
      const now = this.clock.now();
      await this.repository.updateUser(account.id, { passwordHash, confirmedAt: account.confirmedAt ?? now, lockedAt: null, failedAttempts: 0, updatedAt: now }, manager);
      await this.repository.endSessions(account.id, manager);
      await this.log.record({ userId: account.id, email: account.email, kind: 'password_changed', client, detail: { by: 'reset' } }, manager);
      if (account.lockedAt !== null) await this.log.record({ userId: account.id, email: account.email, kind: 'unlocked', client, detail: { by: 'reset' } }, manager);
      await this.mails.passwordChanged(manager, account);
      return account;
    });
    if (!user) return null;
    const person = authenticatedUser(user);
    return { user: person, secondStepDue: await this.secondStep.isDue(person) };
  }

  /** Lifts the lock with an unlock link, once; false when the link does not work. */
  async unlock(token: string, client: ClientSeen): Promise<boolean> {
    const found = await this.repository.findToken(hashToken(token), 'unlock', this.clock.now());
    if (!found) return false;
    return this.repository.transaction(async (manager) => {
      if (!(await this.repository.useToken(found.id, manager))) return false;
      const account = await this.repository.findUser(found.userId, manager);
      if (!account) return false;
      if (await this.repository.unlock(account.id, manager)) await this.log.record({ userId: account.id, email: account.email, kind: 'unlocked', client, detail: { by: 'link' } }, manager);
      return true;
    });
  }

  /** The account a mail of `purpose` may go to now: it exists, is not disabled, and was not sent one in the last minute. */
  private async mailable(given: string, purpose: AccountTokenPurpose): Promise<UserEntity | null> {
    if (!this.available) return null;
    // Any address an account may have, not only those sign-up admits today.
    const email = emailAddress(given);
    const user = email === null ? null : await this.repository.findByEmail(email);
    if (!user || user.disabledAt !== null) return null;
    const now = this.clock.now();
    const issuedAt = await this.repository.tokenIssuedAt(user.id, purpose, now);
    return issuedAt !== undefined && now - issuedAt < MAIL_EVERY_MS ? null : user;
  }
}

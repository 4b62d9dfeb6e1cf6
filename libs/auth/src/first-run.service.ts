import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Clock } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { type AccountField, type AccountFieldError, AccountFormError, newPasswordErrors, personEmail } from './account-rules';
import { AccountsRepository } from './accounts.repository';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import type { ClientSeen } from './lockout';
import { SecurityLog } from './security-log';
import { UsersRepository } from './users.repository';
import { hashToken, UsersService } from './users.service';

export interface FirstRunInput {
  bootCode: string;
  email: string;
  password: string;
  passwordConfirmation: string;
}

const BOOT_CODE = /^[0-9a-f]{32}$/;

/**
 * The first run: while no account exists (and people can sign in with a password), the owner
 * pages lead to /first_run, where the boot code logged at start-up makes the first account, an
 * administrator. The code is 128 random bits, stored only as its SHA-256 in the database, so any
 * replica accepts it; each start-up (and the first run's page, when none is left) logs a new one,
 * and making the first account uses up every one of them. It is the one secret logged on purpose:
 * it is worth nothing once an account exists.
 */
@Injectable()
export class FirstRunService {
  private readonly logger = new Logger('FirstRun');
  /** Once an account is seen, the first run is over for this process: no more queries. */
  private accountsExist = false;

  constructor(
    private readonly users: UsersService,
    private readonly usersRepository: UsersRepository,
    private readonly repository: AccountsRepository,
    private readonly log: SecurityLog,
    private readonly clock: Clock,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** Whether the owner pages lead to /first_run now: no account yet, and sign-in with a password is on. */
  async needed(): Promise<boolean> {
    const { accounts, signIn } = this.settings;
    if (this.accountsExist || accounts.disableLogins || !signIn.passwordSignIn) return false;
    this.accountsExist = await this.repository.anyUser();
    return !this.accountsExist;
  }

  /** Logs a new boot code for the operator when the first run is needed (`unlessOneExists`: only when none is stored). */
  async announce(unlessOneExists = false): Promise<void> {
    if (!(await this.needed())) {
      // Codes of an earlier first run are worth nothing now; none should stay behind.
      if (this.accountsExist && (await this.repository.hasBootCode())) await this.repository.deleteBootCodes();
      return;
    }
    if (unlessOneExists && (await this.repository.hasBootCode())) return;
    const code = randomBytes(16).toString('hex');
    await this.repository.addBootCode(hashToken(code), this.clock.now());
    this.logger.warn(
      `First run: no account exists yet. Open /first_run on this service and enter this boot code to create the administrator account: ${code} ` +
        '(it works once, on any replica; each start-up logs a new one until the first account exists).',
    );
  }

  /** Makes the first account, an administrator, with the boot code; refusals name the field. */
  async redeem(input: FirstRunInput, client: ClientSeen): Promise<AuthenticatedUser> {
    const email = personEmail(this.settings, input.email);
    const code = input.bootCode.trim().toLowerCase();
    const errors: Partial<Record<AccountField, AccountFieldError>> = {
      ...(BOOT_CODE.test(code) ? {} : { boot_code: 'boot-code-wrong' as const }),
      ...(email === null ? { email: 'email-invalid' as const } : {}),
      ...newPasswordErrors(input.password, input.passwordConfirmation),
    };
    if (email === null || Object.keys(errors).length > 0) throw new AccountFormError(errors);
    const passwordHash = await this.users.hashPassword(input.password);
    const now = this.clock.now();
    const user = await this.repository.redeemBootCode(hashToken(code), async (manager) => {
      const created = await this.usersRepository.insertUser({ email, passwordHash, hasWebhooks: false, admin: true, confirmedAt: now, createdAt: now, updatedAt: now }, manager);
      await this.log.record({ userId: created.id, email, kind: 'account_created', client, detail: { by: 'first_run', admin: true } }, manager);
      return created;
    });
    if (!user) throw new AccountFormError({ boot_code: 'boot-code-wrong' });
    this.accountsExist = true;
    this.logger.log('First run complete: the administrator account exists; the boot codes no longer work.');
    return authenticatedUser(user);
  }
}

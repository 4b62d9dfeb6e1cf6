import { Injectable } from '@nestjs/common';
import { Clock, ForbiddenError, NotFoundError } from '@app/common';
import type { AuthenticatedUser } from './authenticated-user';
import type { ClientSeen } from './lockout';
import { RecoveryService } from './recovery.service';
import { type SecurityEventDetail, SecurityLog, type SecurityEventKind } from './security-log';
import { TwoFactorService } from './two-factor/two-factor.service';
import type { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';

/** People a page of the administration lists at once. */
export const PEOPLE_PAGE_SIZE = 25;

/** What an administrator may do to a person's account (never to their own). */
export const PERSON_ACTIONS = ['promote', 'revoke', 'disable', 'enable', 'reset_two_factor', 'send_reset', 'delete'] as const;
export type PersonAction = (typeof PERSON_ACTIONS)[number];

/** A person as the administration lists them: never a password, token or two-factor secret. */
export interface PersonSummary {
  id: number;
  email: string;
  created_at: number;
  last_sign_in_at: number | null;
  /** How they sign in: with a password, by single sign-on, or both. */
  sign_in: ('password' | 'sso')[];
  two_factor: boolean;
  admin: boolean;
  disabled: boolean;
}

export interface PeoplePage {
  people: PersonSummary[];
  hasNext: boolean;
}

/** Who acts, and from where: every administrative action is written to the person's security log with both. */
export interface Administrator {
  user: AuthenticatedUser;
  client: ClientSeen;
}

/**
 * The administration's side of accounts: who is an administrator, the list of people, and the
 * actions on them (promote, revoke, disable, enable, reset two-factor, a reset mail, delete),
 * each refused on the administrator's own account and each written to the person's security log
 * with who did it and from where. A person's pushes are not auth's: deleting them before the
 * account is the caller's part (PushExpiry.deleteAllOwnedBy).
 */
@Injectable()
export class PeopleAdministration {
  constructor(
    private readonly repository: UsersRepository,
    private readonly log: SecurityLog,
    private readonly twoFactor: TwoFactorService,
    private readonly recovery: RecoveryService,
    private readonly clock: Clock,
  ) {}

  /** Whether the signed-in person is an administrator (and not disabled). */
  async isAdministrator(user: AuthenticatedUser): Promise<boolean> {
    const account = await this.repository.findById(user.id);
    return account !== null && account.admin && account.disabledAt === null;
  }

  count(): Promise<number> {
    return this.repository.countUsers();
  }

  /** Page `page` (from 1) of people, oldest first; only those whose address contains `search` when given. */
  async page(page: number, search?: string): Promise<PeoplePage> {
    const rows = await this.repository.findPage(search?.trim() || undefined, (page - 1) * PEOPLE_PAGE_SIZE, PEOPLE_PAGE_SIZE + 1);
    return { people: rows.slice(0, PEOPLE_PAGE_SIZE).map(toSummary), hasNext: rows.length > PEOPLE_PAGE_SIZE };
  }

  /** The person with this address (compared as stored: trimmed, ASCII lower-cased), if any. */
  async findByEmail(email: string): Promise<PersonSummary | null> {
    const account = await this.repository.findByEmail(email.trim().replace(/[A-Z]/g, (c) => c.toLowerCase()));
    return account && toSummary(account);
  }

  /** The addresses of these people (the owners on the administration's list of pushes). */
  async emailsOf(ids: number[]): Promise<Map<number, string>> {
    const users = await this.repository.findByIds([...new Set(ids)]);
    return new Map(users.map((user) => [user.id, user.email]));
  }

  /** Whether a reset link can be mailed (account emails on, password sign-in on). */
  get resetMails(): boolean {
    return this.recovery.available;
  }

  /**
   * The person an action is about: 404 when there is none, 403 when it is the administrator
   * themselves (no one locks, demotes or deletes themselves out of the administration here).
   */
  async target(by: Administrator, id: number): Promise<PersonSummary> {
    const account = await this.repository.findById(id);
    if (!account) throw new NotFoundError();
    if (account.id === by.user.id) throw new ForbiddenError('An administrator cannot do this to their own account.');
    return toSummary(account);
  }

  /** Does `action` to the person (delete: their account only; their pushes are the caller's to delete first). */
  async act(by: Administrator, id: number, action: PersonAction): Promise<PersonSummary> {
    const person = await this.target(by, id);
    const now = this.clock.now();
    switch (action) {
      case 'promote':
      case 'revoke':
        if (await this.repository.setAdmin(id, action === 'promote', now)) await this.record(by, person, action === 'promote' ? 'admin_granted' : 'admin_revoked');
        break;
      case 'disable':
        if (!person.disabled) {
          await this.repository.disableUser(id, now);
          await this.record(by, person, 'account_disabled');
        }
        break;
      case 'enable':
        if (person.disabled) {
          await this.repository.enableUser(id, now);
          await this.record(by, person, 'account_enabled');
        }
        break;
      case 'reset_two_factor':
        await this.twoFactor.reset(person.email, 'admin', { email: by.user.email, client: by.client });
        break;
      case 'send_reset':
        if (!this.recovery.available) throw new ForbiddenError('Account emails are off: no reset link can be mailed.');
        await this.recovery.mailReset(person.email, by.client, { by: 'admin', admin: by.user.email });
        break;
      case 'delete':
        await this.repository.transaction(async (manager) => {
          await this.log.record(this.event(by, person, 'account_deleted'), manager);
          await this.repository.deleteUser(id, manager);
        });
        break;
    }
    return person;
  }

  /** An administrative action on the instance rather than on a person (an export, the custom CSS): in the administrator's own log. */
  recordOwn(by: Administrator, kind: 'audit_exported' | 'custom_css_saved', detail: SecurityEventDetail = {}): Promise<void> {
    return this.log.record({ userId: by.user.id, email: by.user.email, kind, client: by.client, detail: { by: 'admin', admin: by.user.email, ...detail } });
  }

  private record(by: Administrator, person: PersonSummary, kind: SecurityEventKind): Promise<void> {
    return this.log.record(this.event(by, person, kind));
  }

  private event(by: Administrator, person: PersonSummary, kind: SecurityEventKind) {
    return { userId: person.id, email: person.email, kind, client: by.client, detail: { by: 'admin', admin: by.user.email } };
  }
}

function toSummary(user: UserEntity): PersonSummary {
  return {
    id: user.id,
    email: user.email,
    created_at: user.createdAt,
    last_sign_in_at: user.lastSignInAt,
    sign_in: [...(user.passwordHash !== null ? ['password' as const] : []), ...(user.oidcSubject !== null ? ['sso' as const] : [])],
    two_factor: user.otpEnabledAt !== null,
    admin: user.admin,
    disabled: user.disabledAt !== null,
  };
}

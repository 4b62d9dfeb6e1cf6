import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { asciiLowerCase, Clock, DAY_MS } from '@app/common';
import { PassphraseHasher, randomToken } from '@app/crypto';
import { AccountError } from './account.errors';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { SecurityLog } from './security-log';
import type { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const TOKEN_NAME = /^[\w .-]{1,100}$/;
export const DEFAULT_TOKEN_NAME = 'default';

export interface IssuedToken {
  email: string;
  api_token: string;
}

export interface TokenSummary {
  name: string;
  created_at: string;
  /** null: never. */
  expires_at: string | null;
  expired: boolean;
}

/** How a user can sign in on the pages: with a password, and/or by single sign-on (a linked provider identity). */
export type SignInMethod = 'password' | 'sso';

export interface UserSummary {
  email: string;
  created_at: string;
  admin: boolean;
  has_password: boolean;
  sign_in: SignInMethod[];
  disabled: boolean;
  tokens: number;
}

/** The lifetimes a token may be given, in days; none: it works until revoked. */
export const TOKEN_LIFETIMES_DAYS = [30, 90, 365] as const;
export type TokenLifetimeDays = (typeof TOKEN_LIFETIMES_DAYS)[number];

/** 256 random bits behind a recognisable prefix, so leaked tokens are easy to scan for. */
const newToken = (): string => `pwp_${randomToken(32)}`;
/** How tokens and session tokens are stored: they carry 256 random bits, so a fast hash is enough. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Users and their API tokens: issued once in clear text, stored only as hashes. */
@Injectable()
export class UsersService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly hasher: PassphraseHasher,
    private readonly clock: Clock,
    private readonly securityLog: SecurityLog,
  ) {}

  /** An account made by an administrator (the CLI): confirmed, and an administrator when asked. */
  async create(email: string, password?: string, options: { admin?: boolean } = {}): Promise<IssuedToken> {
    const address = normalizeEmail(email);
    if (password !== undefined) checkPassword(password);
    if (await this.repository.findByEmail(address)) throw new AccountError(`A user with the email ${address} already exists.`);
    const now = this.clock.now();
    const passwordHash = password === undefined ? null : await this.hasher.hash(password);
    try {
      await this.repository.transaction(async (manager) => {
        const user = await this.repository.insertUser({ email: address, passwordHash, hasWebhooks: false, admin: options.admin === true, confirmedAt: now, createdAt: now, updatedAt: now }, manager);
        await this.securityLog.record({ userId: user.id, email: address, kind: 'account_created', detail: { by: 'cli', admin: options.admin === true } }, manager);
      });
    } catch {
      // Lost a race with another creation of the same address (unique index).
      throw new AccountError(`A user with the email ${address} already exists.`);
    }
    return this.issueToken(address);
  }

  /** Makes the user an administrator (or not); false when they already were (were not). */
  async setAdmin(email: string, admin: boolean): Promise<boolean> {
    const user = await this.existing(email);
    return this.repository.transaction(async (manager) => {
      const changed = await this.repository.setAdmin(user.id, admin, this.clock.now(), manager);
      if (changed) await this.securityLog.record({ userId: user.id, email: user.email, kind: admin ? 'admin_granted' : 'admin_revoked', detail: { by: 'cli' } }, manager);
      return changed;
    });
  }

  /**
   * Issues the named token, replacing (and so revoking) any earlier token of that name. It works
   * for `lifetimeDays` (one of TOKEN_LIFETIMES_DAYS), or until revoked when that is undefined.
   */
  async issueToken(email: string, name = DEFAULT_TOKEN_NAME, lifetimeDays?: number): Promise<IssuedToken> {
    if (!TOKEN_NAME.test(name)) throw new AccountError('A token name has 1 to 100 letters, digits, spaces, dots, dashes or underscores.');
    if (lifetimeDays !== undefined && !(TOKEN_LIFETIMES_DAYS as readonly number[]).includes(lifetimeDays)) {
      throw new AccountError(`A token expires after ${TOKEN_LIFETIMES_DAYS.join(', ')} days, or never.`);
    }
    return this.putToken(await this.existing(email), name, lifetimeDays === undefined ? null : lifetimeDays * DAY_MS);
  }

  /** Replaces the user's token of this name with a new one that lives as long as the old one was given. */
  async rotateToken(user: AuthenticatedUser, name: string): Promise<IssuedToken> {
    const old = await this.repository.findToken(user.id, name);
    if (!old) throw new AccountError(`There is no token named “${name}”.`);
    return this.putToken(user, name, old.expiresAt === null ? null : old.expiresAt - old.createdAt);
  }

  private async putToken(user: AuthenticatedUser, name: string, lifetimeMs: number | null): Promise<IssuedToken> {
    const token = newToken();
    const now = this.clock.now();
    await this.repository.upsertToken({ userId: user.id, name, tokenHash: hashToken(token), createdAt: now, expiresAt: lifetimeMs === null ? null : now + lifetimeMs });
    return { email: user.email, api_token: token };
  }

  /**
   * Sets or resets the password a person signs in with on the pages (the CLI's way to recover an
   * account): their sessions end, a lockout is lifted and the address counts as confirmed.
   */
  async setPassword(email: string, password: string): Promise<{ sessions_ended: number }> {
    checkPassword(password);
    const user = await this.existing(email);
    const passwordHash = await this.hasher.hash(password);
    return this.repository.transaction(async (manager) => {
      const now = this.clock.now();
      const sessions = await this.repository.resetPassword(user.id, passwordHash, user.confirmedAt ?? now, now, manager);
      await this.securityLog.record({ userId: user.id, email: user.email, kind: 'password_changed', detail: { by: 'cli' } }, manager);
      if (user.lockedAt !== null) await this.securityLog.record({ userId: user.id, email: user.email, kind: 'unlocked', detail: { by: 'cli' } }, manager);
      return { sessions_ended: sessions };
    });
  }

  /**
   * The user with this email and password, or null. An unknown address or a user without a
   * password costs the same Argon2 verification as a wrong password, so timing tells nothing.
   */
  async checkPassword(email: string, password: string): Promise<(AuthenticatedUser & { disabled: boolean }) | null> {
    const { account, valid } = await this.verifyPassword(email, password);
    return account && valid ? { ...authenticatedUser(account), disabled: account.disabledAt !== null } : null;
  }

  /**
   * The account of this address (if any) and whether the password is its password, at the cost of
   * one Argon2 verification whatever the answer (an unknown address, or an account without a
   * password, is checked against a decoy), so timing tells nothing. For libs/auth's own rules.
   */
  async verifyPassword(email: string, password: string): Promise<{ account: UserEntity | null; valid: boolean }> {
    const address = emailAddress(email);
    const account = address === null ? null : await this.repository.findByEmail(address);
    const valid = await this.hasher.verify(account?.passwordHash ?? (await this.decoyHash()), password);
    return { account, valid: valid && account?.passwordHash != null };
  }

  /** Whether `password` is the account's password (one Argon2 verification). */
  async isPassword(account: Pick<UserEntity, 'passwordHash'>, password: string): Promise<boolean> {
    return this.hasher.verify(account.passwordHash ?? (await this.decoyHash()), password).then((valid) => valid && account.passwordHash !== null);
  }

  /** The Argon2id hash of a new password. */
  hashPassword(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  /** The user's tokens by name, with when each was issued; never the tokens themselves. */
  async tokens(user: AuthenticatedUser): Promise<TokenSummary[]> {
    const tokens = await this.repository.listTokens(user.id);
    const now = this.clock.now();
    return tokens.map((token) => ({
      name: token.name,
      created_at: new Date(token.createdAt).toISOString(),
      expires_at: token.expiresAt === null ? null : new Date(token.expiresAt).toISOString(),
      expired: token.expiresAt !== null && token.expiresAt <= now,
    }));
  }

  /** Revokes one of the user's tokens; false when there was none of that name. */
  revokeToken(user: AuthenticatedUser, name: string): Promise<boolean> {
    return this.repository.deleteToken(user.id, name);
  }

  async revokeTokens(email: string): Promise<number> {
    return this.repository.deleteTokens((await this.existing(email)).id);
  }

  async list(): Promise<UserSummary[]> {
    const [users, tokens] = await Promise.all([this.repository.listUsers(), this.repository.tokenCounts()]);
    return users.map((user) => ({
      email: user.email,
      created_at: new Date(user.createdAt).toISOString(),
      admin: user.admin,
      has_password: user.passwordHash !== null,
      sign_in: [...(user.passwordHash !== null ? ['password' as const] : []), ...(user.oidcSubject !== null ? ['sso' as const] : [])],
      disabled: user.disabledAt !== null,
      tokens: tokens.get(user.id) ?? 0,
    }));
  }

  /**
   * Disables the user: from this moment they cannot sign in (password or single sign-on), their
   * sessions are ended and their tokens revoked. Their pushes stay theirs.
   */
  async disable(email: string): Promise<{ email: string; sessions_ended: number; tokens_revoked: number }> {
    const user = await this.existing(email);
    const ended = await this.repository.disableUser(user.id, this.clock.now());
    return { email: user.email, sessions_ended: ended.sessions, tokens_revoked: ended.tokens };
  }

  /** Lets a disabled user sign in again (their old tokens stay revoked). */
  async enable(email: string): Promise<void> {
    await this.repository.enableUser((await this.existing(email)).id, this.clock.now());
  }

  async find(email: string): Promise<AuthenticatedUser> {
    return authenticatedUser(await this.existing(email));
  }

  /** Removes the user and, through the foreign key, their tokens. Their pushes stay, unowned; their security log stays, under their address. */
  async delete(email: string): Promise<void> {
    const user = await this.existing(email);
    await this.repository.transaction(async (manager) => {
      await this.securityLog.record({ userId: user.id, email: user.email, kind: 'account_deleted', detail: { by: 'cli' } }, manager);
      await this.repository.deleteUser(user.id, manager);
    });
  }

  /** The user a token belongs to; with `email` (the legacy header pair) it must also match. */
  async authenticate(token: string, email?: string): Promise<AuthenticatedUser | null> {
    if (!token) return null;
    const user = await this.repository.findUserByTokenHash(hashToken(token), this.clock.now());
    if (!user || (email !== undefined && user.email !== asciiLowerCase(email.trim()))) return null;
    return authenticatedUser(user);
  }

  private decoy?: Promise<string>;

  private decoyHash(): Promise<string> {
    return (this.decoy ??= this.hasher.hash(randomToken(16)));
  }

  private async existing(email: string) {
    const address = normalizeEmail(email);
    const user = await this.repository.findByEmail(address);
    if (!user) throw new AccountError(`No user with the email ${address}.`);
    return user;
  }
}

/** The reference's password length (Devise's password_length), for every password set from now on. */
export const PASSWORD_LENGTH = { min: 10, max: 128 } as const;

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_LENGTH.min) throw new AccountError(`The password must have at least ${PASSWORD_LENGTH.min} characters.`);
  if (password.length > PASSWORD_LENGTH.max) throw new AccountError(`The password must have at most ${PASSWORD_LENGTH.max} characters.`);
}

/**
 * The address as stored (trimmed, its ASCII letters lower-cased), or null when it is not a valid
 * one. Nothing beyond ASCII is folded (see asciiLowerCase): `\u212Aate@...` is not `kate@...`.
 */
export function emailAddress(email: string): string | null {
  const address = asciiLowerCase(email.trim());
  return address.length <= 255 && EMAIL.test(address) ? address : null;
}

/**
 * Whether an address is printable ASCII throughout. Only such an address is matched to an account
 * by its text alone (single sign-on's linking): beyond ASCII, distinct addresses look alike, and
 * MySQL's collation takes some of them for one another (`ā` for `a`, the Kelvin sign for `k`).
 */
export const isAsciiEmail = (address: string): boolean => /^[\x21-\x7e]+$/.test(address);

function normalizeEmail(email: string): string {
  const address = emailAddress(email);
  if (address === null) throw new AccountError(`"${email}" is not a valid email address.`);
  return address;
}

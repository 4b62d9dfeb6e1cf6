import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Clock } from '@app/common';
import { PassphraseHasher, randomToken } from '@app/crypto';
import { AccountError } from './account.errors';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
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
}

export interface UserSummary {
  email: string;
  created_at: string;
  has_password: boolean;
  tokens: number;
}

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
  ) {}

  async create(email: string, password?: string): Promise<IssuedToken> {
    const address = normalizeEmail(email);
    if (password !== undefined) checkPassword(password);
    if (await this.repository.findByEmail(address)) throw new AccountError(`A user with the email ${address} already exists.`);
    const now = this.clock.now();
    const passwordHash = password === undefined ? null : await this.hasher.hash(password);
    try {
      await this.repository.insertUser({ email: address, passwordHash, hasWebhooks: false, createdAt: now, updatedAt: now });
    } catch {
      // Lost a race with another creation of the same address (unique index).
      throw new AccountError(`A user with the email ${address} already exists.`);
    }
    return this.issueToken(address);
  }

  /** Issues the named token, replacing (and so revoking) any earlier token of that name. */
  async issueToken(email: string, name = DEFAULT_TOKEN_NAME): Promise<IssuedToken> {
    if (!TOKEN_NAME.test(name)) throw new AccountError('A token name has 1 to 100 letters, digits, spaces, dots, dashes or underscores.');
    const user = await this.existing(email);
    const token = newToken();
    await this.repository.upsertToken(user.id, name, hashToken(token), this.clock.now());
    return { email: user.email, api_token: token };
  }

  /** Sets or resets the password a person signs in with on the pages. */
  async setPassword(email: string, password: string): Promise<void> {
    checkPassword(password);
    const user = await this.existing(email);
    await this.repository.setPasswordHash(user.id, await this.hasher.hash(password), this.clock.now());
  }

  /**
   * The user with this email and password, or null. An unknown address or a user without a
   * password costs the same Argon2 verification as a wrong password, so timing tells nothing.
   */
  async checkPassword(email: string, password: string): Promise<AuthenticatedUser | null> {
    const address = emailAddress(email);
    const user = address === null ? null : await this.repository.findByEmail(address);
    const valid = await this.hasher.verify(user?.passwordHash ?? (await this.decoyHash()), password);
    return user?.passwordHash && valid ? authenticatedUser(user) : null;
  }

  /** The user's tokens by name, with when each was issued; never the tokens themselves. */
  async tokens(user: AuthenticatedUser): Promise<TokenSummary[]> {
    const tokens = await this.repository.listTokens(user.id);
    return tokens.map((token) => ({ name: token.name, created_at: new Date(token.createdAt).toISOString() }));
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
      has_password: user.passwordHash !== null,
      tokens: tokens.get(user.id) ?? 0,
    }));
  }

  async find(email: string): Promise<AuthenticatedUser> {
    return authenticatedUser(await this.existing(email));
  }

  /** Removes the user and, through the foreign key, their tokens. Their pushes stay, unowned. */
  async delete(email: string): Promise<void> {
    await this.repository.deleteUser((await this.existing(email)).id);
  }

  /** The user a token belongs to; with `email` (the legacy header pair) it must also match. */
  async authenticate(token: string, email?: string): Promise<AuthenticatedUser | null> {
    if (!token) return null;
    const user = await this.repository.findUserByTokenHash(hashToken(token));
    if (!user || (email !== undefined && user.email !== email.trim().toLowerCase())) return null;
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

function checkPassword(password: string): void {
  if (password.length < 8) throw new AccountError('The password must have at least 8 characters.');
  if (password.length > 1024) throw new AccountError('The password must have at most 1024 characters.');
}

/** The address as stored (trimmed, lower-cased), or null when it is not a valid one. */
function emailAddress(email: string): string | null {
  const address = email.trim().toLowerCase();
  return address.length <= 255 && EMAIL.test(address) ? address : null;
}

function normalizeEmail(email: string): string {
  const address = emailAddress(email);
  if (address === null) throw new AccountError(`"${email}" is not a valid email address.`);
  return address;
}

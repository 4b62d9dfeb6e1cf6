import { Injectable } from '@nestjs/common';
import { Clock, DAY_MS, MINUTE_MS } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { FieldCipher, randomToken } from '@app/crypto';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { UsersRepository } from './users.repository';
import { hashToken } from './users.service';

const ID_TOKEN_CONTEXT = 'session-id-token';

/** "Remember me" (the reference's remember_for): a week from sign-in, without the inactivity timeout. */
export const REMEMBER_MS = 7 * DAY_MS;
/** A session's expiry moves with its requests, but is written at most this often, so pages do not write on every request. */
export const SLIDE_EVERY_MS = MINUTE_MS;

export interface SessionOptions {
  /** A single sign-on's ID token, kept (encrypted) for the provider's logout. */
  idToken?: string;
  remember?: boolean;
}

/**
 * Signed-in browsers. A session is a random token in a cookie and a row holding its hash, so it
 * works on every replica, ends everywhere at once when its user signs out, and a copy of the
 * database gives nobody a usable cookie. Each sign-in starts a new session (a new token).
 *
 * A session ends after PWP__LOGIN_SESSION_TIMEOUT without a request: each request that uses it
 * moves its expiry (sliding), written at most once a minute. "Remember me" keeps it a week from
 * sign-in instead, as the reference does.
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
    private readonly cipher: FieldCipher,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  /** How long the session's cookie should be kept: a week when remembered, else until the browser closes (undefined). */
  static cookieLifetimeMs(options: SessionOptions): number | undefined {
    return options.remember ? REMEMBER_MS : undefined;
  }

  /** Starts a session for the user; returns the cookie's token. */
  async start(user: AuthenticatedUser, options: SessionOptions = {}): Promise<string> {
    const now = this.clock.now();
    // 33 bytes (44 characters): tokens of 32 bytes (43) are those issued before the pages' cookies
    // took the __Host- prefix over https, which PageSession tells apart.
    const token = randomToken(33);
    const idToken = options.idToken === undefined ? null : this.cipher.encrypt(options.idToken, ID_TOKEN_CONTEXT);
    const remember = options.remember === true;
    const expiresAt = now + (remember ? REMEMBER_MS : this.settings.accounts.sessionTimeoutMs);
    await this.repository.insertSession({ tokenHash: hashToken(token), userId: user.id, createdAt: now, expiresAt, idToken, remember });
    return token;
  }

  /** The user a cookie's token signs in, while its session lasts; moves an idle-timed session's expiry. */
  async userOf(token: string): Promise<AuthenticatedUser | null> {
    if (!/^[\w-]{43,44}$/.test(token)) return null;
    const now = this.clock.now();
    const found = await this.repository.findSessionUser(hashToken(token), now);
    if (!found) return null;
    const { session, user } = found;
    const slid = now + this.settings.accounts.sessionTimeoutMs;
    if (!session.remember && slid - session.expiresAt >= SLIDE_EVERY_MS) await this.repository.slideSession(session.id, session.expiresAt, slid);
    return authenticatedUser(user);
  }

  /** Ends the session; what it knew of a single sign-on, for the provider's logout. */
  async end(token: string): Promise<{ idToken?: string }> {
    const ended = await this.repository.deleteSession(hashToken(token));
    if (!ended?.idToken) return {};
    try {
      return { idToken: this.cipher.decrypt(ended.idToken, ID_TOKEN_CONTEXT) };
    } catch {
      // Sealed under a key since retired: sign-out goes on without the hint.
      return {};
    }
  }
}

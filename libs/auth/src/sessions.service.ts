import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { FieldCipher, randomToken } from '@app/crypto';
import { AuthenticatedUser, authenticatedUser } from './authenticated-user';
import { UsersRepository } from './users.repository';
import { hashToken } from './users.service';

const ID_TOKEN_CONTEXT = 'session-id-token';

/** How long a sign-in lasts. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * Signed-in browsers. A session is a random 256-bit token in a cookie and a row holding its hash,
 * so it works on every replica, ends everywhere at once when its user signs out, and a copy of the
 * database gives nobody a usable cookie. Each sign-in starts a new session (a new token).
 */
@Injectable()
export class SessionsService {
  constructor(
    private readonly repository: UsersRepository,
    private readonly clock: Clock,
    private readonly cipher: FieldCipher,
  ) {}

  /**
   * Starts a session for the user; returns the cookie's token. A single sign-on keeps the
   * provider's ID token, encrypted, for the logout at its end.
   */
  async start(user: AuthenticatedUser, idToken?: string): Promise<string> {
    const now = this.clock.now();
    // 33 bytes (44 characters): tokens of 32 bytes (43) are those issued before the pages' cookies
    // took the __Host- prefix over https, which PageSession tells apart.
    const token = randomToken(33);
    const sealedIdToken = idToken === undefined ? null : this.cipher.encrypt(idToken, ID_TOKEN_CONTEXT);
    await this.repository.insertSession({ tokenHash: hashToken(token), userId: user.id, createdAt: now, expiresAt: now + SESSION_LIFETIME_MS, idToken: sealedIdToken, remember: false });
    return token;
  }

  /** The user a cookie's token signs in, while its session lasts. */
  async userOf(token: string): Promise<AuthenticatedUser | null> {
    if (!/^[\w-]{43,44}$/.test(token)) return null;
    const user = await this.repository.findUserBySessionHash(hashToken(token), this.clock.now());
    return user ? authenticatedUser(user) : null;
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

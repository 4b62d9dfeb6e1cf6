import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AccountFormError, type AuthenticatedUser } from '@app/auth';
import { clientInfoOf, TooManyRequestsError } from '@app/common';
import { SignInAttempts } from '@app/rate-limit';
import { text } from './page-text';

/**
 * The password (or a code) a signed-in person gives to a form of theirs (the account page's
 * changes and deletion, two-factor's off switch and new recovery codes) is a sign-in's secret
 * too: a stolen session must not become a way to guess it at Argon2's pace. So each wrong one
 * counts toward the sign-in limits (SignInAttempts: per account and address, per address, per
 * account, shared through Redis) and, once they are reached, such forms are held back (429)
 * exactly as the sign-in form is.
 */
@Injectable()
export class PasswordGuesses {
  constructor(private readonly attempts: SignInAttempts) {}

  /** Refuses (429) while the sign-in limits hold this account back from this address. */
  async holdBack(user: AuthenticatedUser, request: Request): Promise<void> {
    const blockedFor = await this.attempts.blockedFor(user.email, clientInfoOf(request).ip);
    if (blockedFor > 0) throw new TooManyRequestsError(text('account.tooManyAttempts'), blockedFor);
  }

  /** Counts a wrong password or code. */
  async wrong(user: AuthenticatedUser, request: Request): Promise<void> {
    await this.attempts.recordFailure(user.email, clientInfoOf(request).ip);
  }

  /** Runs a check of the person's current password: held back first, and counted when AccountFormError says it was wrong. */
  async checked<T>(user: AuthenticatedUser, request: Request, act: () => Promise<T>): Promise<T> {
    await this.holdBack(user, request);
    try {
      return await act();
    } catch (error) {
      if (error instanceof AccountFormError && error.errors.current_password === 'current-password-wrong') await this.wrong(user, request);
      throw error;
    }
  }
}

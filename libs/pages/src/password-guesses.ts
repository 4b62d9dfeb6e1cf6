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

  /**
   * Runs `act`, a check of the person's password or code: counted toward the sign-in limits before
   * it runs (atomically, so that checks sent together cannot outrun them; 429 once they are
   * reached), and given back unless it was wrong, as `wrong` says of its result or an
   * AccountFormError for the current password says.
   */
  async checked<T>(user: AuthenticatedUser, request: Request, act: () => Promise<T>, wrong: (result: T) => boolean = () => false): Promise<T> {
    const address = clientInfoOf(request).ip;
    const blockedFor = await this.attempts.take(user.email, address);
    if (blockedFor > 0) throw new TooManyRequestsError(text('account.tooManyAttempts'), blockedFor);
    let failed = false;
    try {
      const result = await act();
      failed = wrong(result);
      return result;
    } catch (error) {
      failed = error instanceof AccountFormError && error.errors.current_password === 'current-password-wrong';
      throw error;
    } finally {
      if (!failed) await this.attempts.giveBack(user.email, address);
    }
  }
}

import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from './authenticated-user';
import { TwoFactorRepository } from './two-factor/two-factor.repository';

/**
 * Whether a person who gave the right password must pass a second step (two-factor) before a
 * session starts: the one question SignInService asks, after the password and the account's
 * rules, and before any session. It is due when the person has two-factor authentication on.
 */
@Injectable()
export class SecondStep {
  constructor(private readonly twoFactor: TwoFactorRepository) {}

  isDue(user: AuthenticatedUser): Promise<boolean> {
    return this.twoFactor.isOn(user.id);
  }
}

import { Injectable } from '@nestjs/common';
import type { AuthenticatedUser } from './authenticated-user';

/**
 * Whether a person who gave the right password must pass a second step (two-factor) before a
 * session starts: the one question SignInService asks, after the password and the account's
 * rules, and before any session. Two-factor authentication answers it; until then, never.
 */
@Injectable()
export class SecondStep {
  async isDue(_user: AuthenticatedUser): Promise<boolean> {
    return false;
  }
}

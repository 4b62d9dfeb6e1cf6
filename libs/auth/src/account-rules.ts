import type { Settings } from '@app/config';
import { asciiLowerCase } from '@app/common';
import { isAsciiEmail, PASSWORD_LENGTH } from './users.service';

/** Why a field of an account form was refused: a code the pages turn into words. */
export type AccountFieldError =
  | 'email-invalid'
  | 'email-taken'
  | 'email-unchanged'
  | 'password-too-short'
  | 'password-too-long'
  | 'password-mismatch'
  | 'current-password-wrong'
  | 'boot-code-wrong';

export type AccountField = 'email' | 'password' | 'password_confirmation' | 'current_password' | 'boot_code';

/** A form of the account pages refused, field by field; never says whether another account exists, except `email-taken` where the contract allows it. */
export class AccountFormError extends Error {
  constructor(readonly errors: Partial<Record<AccountField, AccountFieldError>>) {
    super(`Refused: ${Object.values(errors).join(', ')}.`);
  }
}

const BASIC_EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * An address a person gives (sign-up, first run, a change): trimmed and its ASCII letters
 * lower-cased, as stored, when it is one, printable ASCII throughout (beyond ASCII, distinct
 * addresses look alike: a Kelvin sign for a k) and PWP__SIGNUP_EMAIL_REGEXP admits it; else null.
 */
export function personEmail(settings: Pick<Settings, 'accounts'>, given: string): string | null {
  const address = asciiLowerCase(given.trim());
  return address.length <= 255 && BASIC_EMAIL.test(address) && isAsciiEmail(address) && settings.accounts.signupEmailPattern.test(address) ? address : null;
}

/** What is wrong with a new password and its confirmation, if anything. */
export function newPasswordErrors(password: string, confirmation: string): Partial<Record<AccountField, AccountFieldError>> {
  if (password.length < PASSWORD_LENGTH.min) return { password: 'password-too-short' };
  if (password.length > PASSWORD_LENGTH.max) return { password: 'password-too-long' };
  return password === confirmation ? {} : { password_confirmation: 'password-mismatch' };
}

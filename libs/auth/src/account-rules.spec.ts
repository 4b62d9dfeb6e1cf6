import { loadSettings } from '@app/config';
import { newPasswordErrors, personEmail } from './account-rules';

describe('account rules', () => {
  const settings = loadSettings({ PWP__SIGNUP_EMAIL_REGEXP: String.raw`\A[^@\s]+@(example\.com)\z` });

  it('takes an address trimmed and lower-cased, when it is one and the pattern admits it', () => {
    expect(personEmail(settings, '  Ada@Example.COM ')).toBe('ada@example.com');
    expect(personEmail(settings, 'ada@example.org')).toBeNull();
    expect(personEmail(settings, 'not an address')).toBeNull();
    expect(personEmail(settings, `${'a'.repeat(250)}@example.com`)).toBeNull();
    // Beyond ASCII, addresses look alike: a Kelvin sign is not a k, and is not taken.
    expect(personEmail(settings, '\u212Aate@example.com')).toBeNull();
    expect(personEmail(settings, 'kāte@example.com')).toBeNull();
  });

  it('wants 10 to 128 characters, typed the same twice', () => {
    expect(newPasswordErrors('x'.repeat(9), 'x'.repeat(9))).toEqual({ password: 'password-too-short' });
    expect(newPasswordErrors('x'.repeat(10), 'x'.repeat(10))).toEqual({});
    expect(newPasswordErrors('x'.repeat(128), 'x'.repeat(128))).toEqual({});
    expect(newPasswordErrors('x'.repeat(129), 'x'.repeat(129))).toEqual({ password: 'password-too-long' });
    expect(newPasswordErrors('a long password', 'a long passwore')).toEqual({ password_confirmation: 'password-mismatch' });
  });
});

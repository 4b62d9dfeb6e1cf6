import type { SignInRefusal } from '@app/auth';
import type { PageResult } from './page-responder';

/** What a refused sign-in that is not a wrong password says (a wrong password: the form again, with its error). */
const REFUSALS: Record<Exclude<SignInRefusal, 'wrong-password'>, string> = {
  'password-sign-in-off': 'Signing in with a password is turned off here. Use single sign-on.',
  disabled: 'This account is disabled. Ask your administrator.',
  'unverified-email': 'Your identity provider did not confirm that your email address is yours, so it cannot sign you in here. Ask your administrator.',
  'domain-not-allowed': 'Your email address is not in a domain allowed to sign in here.',
  'no-account': 'You have no account here, and accounts are not created at sign-in. Ask your administrator for one.',
  'linked-elsewhere': 'Your account here is linked to another identity at your identity provider. Ask your administrator.',
};

/** Single sign-on that could not be completed: the provider's answer failed a check, or took too long. */
export const SSO_FAILED = 'Signing in with your identity provider did not complete: its answer could not be verified, or the sign-in took too long. Try again.';
export const SSO_UNAVAILABLE = 'Single sign-on is unavailable right now: this service cannot reach the identity provider. Try again in a minute.';

/** The page saying why a sign-in was refused, with the way back to the sign-in page; never whether an account exists. */
export function refusal(reason: Exclude<SignInRefusal, 'wrong-password'> | 'failed' | 'unavailable'): PageResult {
  const text = reason === 'failed' ? SSO_FAILED : reason === 'unavailable' ? SSO_UNAVAILABLE : REFUSALS[reason];
  return {
    view: 'message',
    title: 'Not signed in',
    status: reason === 'unavailable' ? 503 : 403,
    data: { message: text, link: { href: '/users/sign_in', text: 'Back to sign-in' } },
  };
}

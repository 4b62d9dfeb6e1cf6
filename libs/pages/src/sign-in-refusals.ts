import type { SignInRefusal } from '@app/auth';
import type { PageResult } from './page-responder';
import { text, type TextKey } from './page-text';

/** Why a sign-in was refused, when it is not a wrong password (that one: the form again, with its error). */
export type RefusalReason = Exclude<SignInRefusal, 'wrong-password'> | 'failed' | 'unavailable';

/** The page saying why a sign-in was refused, with the way back to the sign-in page; never whether an account exists. */
export function refusal(reason: RefusalReason): PageResult {
  return {
    view: 'message',
    title: text('account.notSignedIn'),
    status: reason === 'unavailable' ? 503 : 403,
    data: { message: text(`account.refused.${reason}` satisfies TextKey), link: { href: '/users/sign_in', text: text('account.backToSignIn') } },
  };
}

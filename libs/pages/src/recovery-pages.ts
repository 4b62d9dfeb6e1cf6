import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type AccountField, RecoveryService } from '@app/auth';
import { clientInfoOf } from '@app/common';
import { NOT_FOUND, outcome, PASSWORD_HINT, userField, withFieldErrors } from './account-forms';
import type { PageResult } from './page-responder';
import { formField, PageSession } from './page-session';
import { text } from './page-text';
import { BAD_LINK, emailRequest, linkAction } from './sign-up-pages';

const TOKENS: PageResult = { redirect: '/users/token', status: 303 };
const SIGN_IN_LINK = { href: '/users/sign_in', text: 'account.signIn' } as const;

/**
 * Getting back into an account by mail (account emails on; 404 otherwise, where the CLI resets
 * passwords): the reset link's form, and the unlock link's button. Asking for either answers the
 * same page whatever the address.
 */
@Injectable()
export class RecoveryPages {
  constructor(
    private readonly recovery: RecoveryService,
    private readonly session: PageSession,
  ) {}

  resetRequestForm(): PageResult {
    return this.recovery.available ? emailRequest('reset.requestTitle', 'reset.requestIntro', '/users/password/new', 'reset.requestSubmit') : NOT_FOUND;
  }

  async requestReset(request: Request): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    this.session.checkCsrf(request);
    this.recovery.requestReset(userField(request, 'email'), clientInfoOf(request));
    return outcome('reset.sentTitle', 'reset.sent', SIGN_IN_LINK);
  }

  async resetForm(token: unknown): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    if (typeof token !== 'string' || !(await this.recovery.linkWorks(token, 'reset'))) return BAD_LINK;
    return resetPage(token);
  }

  /** Sets the new password; signs the person in, unless a second step (two-factor) is due: then they sign in anew. */
  async reset(request: Request, response: Response): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    this.session.checkCsrf(request);
    const token = formField(request, 'reset_password_token') ?? '';
    return withFieldErrors(
      async () => {
        const reset = await this.recovery.reset(token, userField(request, 'password'), userField(request, 'password_confirmation'), clientInfoOf(request));
        if (!reset) return BAD_LINK;
        if (reset.secondStepDue) return outcome('reset.doneTitle', 'reset.done', SIGN_IN_LINK);
        await this.session.signIn(request, response, reset.user, { method: 'reset' });
        return TOKENS;
      },
      (errors) => resetPage(token, errors),
    );
  }

  unlockRequestForm(): PageResult {
    return this.recovery.available ? emailRequest('unlock.requestTitle', 'unlock.requestIntro', '/users/unlock/new', 'unlock.requestSubmit') : NOT_FOUND;
  }

  async requestUnlock(request: Request): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    this.session.checkCsrf(request);
    this.recovery.requestUnlock(userField(request, 'email'));
    return outcome('reset.sentTitle', 'unlock.sent', SIGN_IN_LINK);
  }

  async unlockPage(token: unknown): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    if (typeof token !== 'string' || !(await this.recovery.linkWorks(token, 'unlock'))) return BAD_LINK;
    return linkAction('unlock.title', 'unlock.intro', '/users/unlock', 'unlock_token', token, 'unlock.submit');
  }

  async unlock(request: Request): Promise<PageResult> {
    if (!this.recovery.available) return NOT_FOUND;
    this.session.checkCsrf(request);
    return (await this.recovery.unlock(formField(request, 'unlock_token') ?? '', clientInfoOf(request))) ? outcome('unlock.doneTitle', 'unlock.done', SIGN_IN_LINK) : BAD_LINK;
  }
}

function resetPage(token: string, errors?: Partial<Record<AccountField, string>>): PageResult {
  return { view: 'reset-password', title: text('reset.title'), status: errors ? 422 : 200, data: { token, errors, passwordHint: PASSWORD_HINT() } };
}

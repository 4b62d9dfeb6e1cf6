import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { type AccountField, FirstRunService, SignUpService } from '@app/auth';
import { clientInfoOf } from '@app/common';
import { NOT_FOUND, outcome, PASSWORD_HINT, userField, withFieldErrors } from './account-forms';
import type { PageResult } from './page-responder';
import { formField, PageSession } from './page-session';
import { text, type TextKey } from './page-text';

const TOKENS: PageResult = { redirect: '/users/token', status: 303 };
const SIGN_IN: PageResult = { redirect: '/users/sign_in', status: 303 };
const SIGN_IN_LINK = { href: '/users/sign_in', text: 'account.signIn' } as const;

type Errors = Partial<Record<AccountField, string>>;

/**
 * Making an account: sign-up (/users/sign_up, POST /users), the first run's administrator
 * (/first_run, with the boot code), and the confirmation of an address by its mailed link, whose
 * GET only shows a button: mail scanners that follow links confirm nothing.
 */
@Injectable()
export class SignUpPages {
  constructor(
    private readonly signUps: SignUpService,
    private readonly firstRun: FirstRunService,
    private readonly session: PageSession,
  ) {}

  async signUpForm(request: Request): Promise<PageResult> {
    if (!this.signUps.open) return NOT_FOUND;
    return (await this.session.user(request)) ? TOKENS : signUpPage();
  }

  async signUp(request: Request, response: Response): Promise<PageResult> {
    if (!this.signUps.open) return NOT_FOUND;
    this.session.checkCsrf(request);
    const email = userField(request, 'email');
    const input = { email, password: userField(request, 'password'), passwordConfirmation: userField(request, 'password_confirmation') };
    return withFieldErrors(
      async () => {
        const made = await this.signUps.signUp(input, clientInfoOf(request));
        if ('checkMail' in made) return outcome('signUp.checkMailTitle', 'signUp.checkMail', SIGN_IN_LINK);
        await this.session.signIn(request, response, made.user, { method: 'sign_up' });
        return TOKENS;
      },
      (errors) => signUpPage(email, errors),
    );
  }

  async firstRunForm(): Promise<PageResult> {
    if (!(await this.firstRun.needed())) return SIGN_IN;
    // A code is logged at start-up; one more only when none is left (so visits cannot flood the log).
    await this.firstRun.announce(true);
    return firstRunPage();
  }

  async createFirstAccount(request: Request, response: Response): Promise<PageResult> {
    if (!(await this.firstRun.needed())) return SIGN_IN;
    this.session.checkCsrf(request);
    const email = userField(request, 'email');
    const input = { bootCode: formField(request, 'boot_code') ?? '', email, password: userField(request, 'password'), passwordConfirmation: userField(request, 'password_confirmation') };
    return withFieldErrors(
      async () => {
        const user = await this.firstRun.redeem(input, clientInfoOf(request));
        await this.session.signIn(request, response, user, { method: 'first_run' });
        return TOKENS;
      },
      (errors) => firstRunPage(email, errors),
    );
  }

  async confirmationPage(token: unknown): Promise<PageResult> {
    if (!this.signUps.confirmsByMail) return NOT_FOUND;
    if (typeof token !== 'string' || !(await this.signUps.confirmationWorks(token))) return BAD_LINK;
    return linkAction('confirm.title', 'confirm.intro', '/users/confirmation', 'confirmation_token', token, 'confirm.submit');
  }

  async confirm(request: Request): Promise<PageResult> {
    if (!this.signUps.confirmsByMail) return NOT_FOUND;
    this.session.checkCsrf(request);
    const confirmed = await this.signUps.confirm(formField(request, 'confirmation_token') ?? '', clientInfoOf(request));
    return confirmed ? outcome('confirm.doneTitle', 'confirm.done', SIGN_IN_LINK) : BAD_LINK;
  }

  resendForm(): PageResult {
    return this.signUps.confirmsByMail ? emailRequest('confirm.resendTitle', 'confirm.resendIntro', '/users/confirmation/new', 'confirm.resendSubmit') : NOT_FOUND;
  }

  async resend(request: Request): Promise<PageResult> {
    if (!this.signUps.confirmsByMail) return NOT_FOUND;
    this.session.checkCsrf(request);
    this.signUps.resendConfirmation(userField(request, 'email'));
    return outcome('signUp.checkMailTitle', 'confirm.resent', SIGN_IN_LINK);
  }
}

/** A mailed link that does not work (unknown, used or expired): one page for all three. */
export const BAD_LINK: PageResult = outcome('link.badTitle', 'link.bad', { href: '/users/sign_in', text: 'account.backToSignIn' }, 404);

function signUpPage(email = '', errors?: Errors): PageResult {
  return { view: 'sign-up', title: text('signUp.title'), status: errors ? 422 : 200, data: { email, errors, passwordHint: PASSWORD_HINT() } };
}

function firstRunPage(email = '', errors?: Errors): PageResult {
  return { view: 'first-run', title: text('firstRun.title'), status: errors ? 422 : 200, data: { email, errors, passwordHint: PASSWORD_HINT() } };
}

/** The page behind a mailed link: a button that POSTs its token (a GET changes nothing). */
export function linkAction(title: TextKey, intro: TextKey, action: string, field: string, token: string, submit: TextKey): PageResult {
  return { view: 'link-action', title: text(title), data: { intro: text(intro), action, field, token, submit: text(submit) } };
}

/** A form asking only for an address (a new confirmation, reset or unlock link). */
export function emailRequest(title: TextKey, intro: TextKey, action: string, submit: TextKey): PageResult {
  return { view: 'email-request', title: text(title), data: { intro: text(intro), action, submit: text(submit) } };
}

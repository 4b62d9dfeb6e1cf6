import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AccountFormError, type AuthenticatedUser, ProfileService, TwoFactorService } from '@app/auth';
import { asciiLowerCase, clientInfoOf } from '@app/common';
import { InjectSettings, type Settings } from '@app/config';
import { I18n } from '@app/i18n';
import { PushExpiry } from '@app/pushes';
import { fieldErrors, outcome, PASSWORD_HINT, userField } from './account-forms';
import type { PageResult } from './page-responder';
import { PageSession } from './page-session';
import { PasswordGuesses } from './password-guesses';
import { text } from './page-text';

const SIGN_IN: PageResult = { redirect: '/users/sign_in', status: 303 };
const HOME: PageResult = { redirect: '/', status: 303 };

/** What the account page says after a form: a notice, or the refused fields (by the form's own field ids). */
interface FormOutcome {
  notice?: string;
  errors?: Record<string, string>;
  email?: string;
}

/**
 * The account page, /users/edit: the address (confirmed by mail first with account emails on),
 * the password, the preferred language, two-factor (its own section) and deleting the account.
 * Each form is its own POST and answers the page again with a notice, or with its fields refused.
 */
@Injectable()
export class ProfilePages {
  constructor(
    private readonly profiles: ProfileService,
    private readonly twoFactor: TwoFactorService,
    private readonly pushes: PushExpiry,
    private readonly session: PageSession,
    private readonly guesses: PasswordGuesses,
    private readonly i18n: I18n,
    @InjectSettings() private readonly settings: Settings,
  ) {}

  async edit(request: Request): Promise<PageResult> {
    const user = await this.session.user(request);
    return user ? this.page(user) : this.signInFirst;
  }

  async changeEmail(request: Request): Promise<PageResult> {
    return this.change(request, async (user) => {
      const email = userField(request, 'email');
      const changed = await this.guesses
        .checked(user, request, () => this.profiles.changeEmail(user, email, userField(request, 'current_password'), clientInfoOf(request)))
        .catch(renamed({ current_password: 'email_current_password' }));
      if (changed instanceof FailedForm) return { errors: changed.errors, email };
      return { notice: changed === 'confirm' ? text('profile.emailConfirm') : text('profile.emailChanged', { email: asciiLowerCase(email.trim()) }) };
    });
  }

  async changePassword(request: Request): Promise<PageResult> {
    return this.change(request, async (user) => {
      const changed = await this.guesses
        .checked(user, request, () =>
          this.profiles.changePassword(user, userField(request, 'current_password'), userField(request, 'password'), userField(request, 'password_confirmation'), clientInfoOf(request), this.session.token(request)),
        )
        .catch(renamed({}));
      return changed instanceof FailedForm ? { errors: changed.errors } : { notice: text('profile.passwordChanged') };
    });
  }

  async setLanguage(request: Request): Promise<PageResult> {
    return this.change(request, async (user) => {
      const saved = await this.profiles.setLanguage(user, userField(request, 'preferred_language'));
      return saved ? { notice: text('profile.languageSaved') } : { errors: { language: text('account.errors') } };
    });
  }

  /** Deletes the account after its password: the person's pushes are expired and deleted first, then the account, signed out. */
  async delete(request: Request, response: Response): Promise<PageResult> {
    this.session.checkCsrf(request);
    const user = await this.session.user(request);
    if (!user) return this.signInFirst;
    const confirmed = await this.guesses.checked(user, request, () => this.profiles.confirmDeletion(user, userField(request, 'current_password'))).catch(renamed({ current_password: 'delete' }));
    if (confirmed instanceof FailedForm) return this.page(user, { errors: confirmed.errors });
    await this.pushes.deleteAllOwnedBy(user.id);
    await this.profiles.delete(user, clientInfoOf(request));
    await this.session.signOut(request, response);
    return outcome('profile.deletedTitle', 'profile.deleted', { href: '/', text: 'nav.push' });
  }

  private async change(request: Request, act: (user: AuthenticatedUser) => Promise<FormOutcome>): Promise<PageResult> {
    this.session.checkCsrf(request);
    const user = await this.session.user(request);
    if (!user) return this.signInFirst;
    return this.page(user, await act(user));
  }

  private async page(user: AuthenticatedUser, result: FormOutcome = {}): Promise<PageResult> {
    const profile = await this.profiles.profile(user);
    // The languages this instance speaks, each in its own name.
    const languages = this.i18n.languages.map(({ code, name }) => ({ code, name, selected: code === profile.preferredLanguage }));
    return {
      view: 'account',
      title: text('profile.title'),
      status: result.errors ? 422 : 200,
      data: { profile, languages, twoFactor: await this.twoFactor.status(user), passwordHint: PASSWORD_HINT(), ...result },
    };
  }

  private get signInFirst(): PageResult {
    return this.settings.accounts.disableLogins ? HOME : SIGN_IN;
  }
}

/** A form's fields refused, under the ids the account page gives them. */
class FailedForm {
  constructor(readonly errors: Record<string, string>) {}
}

/** Turns an AccountFormError into a FailedForm, renaming fields the page shows under other ids (two forms ask for the current password). */
function renamed(ids: Record<string, string>): (error: unknown) => FailedForm {
  return (error) => {
    if (!(error instanceof AccountFormError)) throw error;
    return new FailedForm(Object.fromEntries(Object.entries(fieldErrors(error)).map(([field, message]) => [ids[field] ?? field, message])));
  };
}

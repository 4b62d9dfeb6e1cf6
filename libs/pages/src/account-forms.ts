import type { Request } from 'express';
import { type AccountField, AccountFormError, PASSWORD_LENGTH } from '@app/auth';
import type { PageResult } from './page-responder';
import { formField } from './page-session';
import { text, type TextKey } from './page-text';

/**
 * A field of an account form: `user[name]` as the reference's forms send it (Devise's), or `name`
 * alone; anything but text reads as ''.
 */
export function userField(request: Request, name: string): string {
  const nested = (request.body as { user?: Record<string, unknown> } | undefined)?.user;
  const value = nested !== null && typeof nested === 'object' ? nested[name] : undefined;
  return typeof value === 'string' ? value : (formField(request, name) ?? '');
}

/** The words for each refused field of an account form. */
export function fieldErrors(error: AccountFormError): Partial<Record<AccountField, string>> {
  return Object.fromEntries(Object.entries(error.errors).map(([field, code]) => [field, text(`account.error.${code}` satisfies TextKey, PASSWORD_LENGTH)]));
}

/** Runs a form's action; a refusal of its fields becomes `refused(errors)` (the form again, 422). */
export async function withFieldErrors<T>(act: () => Promise<T>, refused: (errors: Partial<Record<AccountField, string>>) => PageResult | Promise<PageResult>): Promise<T | PageResult> {
  try {
    return await act();
  } catch (error) {
    if (error instanceof AccountFormError) return refused(fieldErrors(error));
    throw error;
  }
}

export const PASSWORD_HINT = (): string => text('account.passwordHint', PASSWORD_LENGTH);

/** What a switched-off feature answers: a plain "no such page" (404), never the secret-link page. */
export const NOT_FOUND: PageResult = { view: 'message', title: text('account.notFound'), status: 404, data: { message: text('account.notFoundText') } };

/** A page saying how something ended, with a way on. */
export function outcome(title: TextKey, message: TextKey, link?: { href: string; text: TextKey }, status = 200): PageResult {
  return { view: 'message', title: text(title), status, data: { message: text(message), link: link && { href: link.href, text: text(link.text) } } };
}

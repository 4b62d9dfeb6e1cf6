import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { I18n, type LanguageChoice } from '@app/i18n';
import type { LanguageLink } from './page-renderer';
import { PageSession } from './page-session';
import { inPageLanguage } from './page-text';

/**
 * The language of each page request, chosen before its handler runs: `?locale=`, the signed-in
 * person's preferred language, Accept-Language, the default (I18n.choose). The handler's `text`
 * and the view both speak it; only page routes pay for it, never the API's.
 */
@Injectable()
export class PageLanguages implements NestMiddleware {
  constructor(
    private readonly i18n: I18n,
    private readonly session: PageSession,
  ) {}

  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    // API v1's /p/:url_token.json shares the pages' prefix; JSON speaks no language.
    if (request.path.endsWith('.json')) return next();
    const choice = this.i18n.choose({
      query: request.query.locale,
      preferred: await this.preferredLanguage(request),
      acceptLanguage: request.headers['accept-language'],
    });
    response.locals.language = choice;
    inPageLanguage(choice.locale, next);
  }

  /** The language a page was chosen in (for a page answered without the middleware: the browser's). */
  of(request: Request, response: Response): LanguageChoice {
    return (response.locals.language as LanguageChoice | undefined) ?? this.i18n.choose({ acceptLanguage: request.headers['accept-language'] });
  }

  /** The footer menu: this page's address in each available language, the current one marked. */
  menu(request: Request, current: string): LanguageLink[] {
    if (this.i18n.languages.length < 2) return [];
    return this.i18n.languages.map(({ code, name, dir }) => ({ code, name, dir, href: addressIn(request, code), current: code === current }));
  }

  /** Only with a session cookie is there a lookup; an outage here leaves the choice to the header (the page then says what failed). */
  private async preferredLanguage(request: Request): Promise<string | null | undefined> {
    try {
      return (await this.session.user(request))?.preferredLanguage;
    } catch {
      return undefined;
    }
  }
}

/**
 * This page in language `code`: its query with `locale` set, relative to the page's own path, so
 * that the neutral page of an unknown secret link reads the same whatever link was asked for.
 */
function addressIn(request: Request, code: string): string {
  const query = new URL(request.originalUrl, 'http://page.invalid').searchParams;
  query.set('locale', code);
  return `?${query.toString()}`;
}

/**
 * A local page address with `?locale=` added, for a page whose language came from its address:
 * its links, forms and redirects keep it (the reference's default_url_options). Other sites,
 * assets, and addresses that name a language already are left alone.
 */
export function withLocale(address: string, locale: string, separator = '&'): string {
  if (!address.startsWith('/') || address.startsWith('//') || address.startsWith('/assets/')) return address;
  const hash = address.indexOf('#');
  const path = hash === -1 ? address : address.slice(0, hash);
  if (/(?:[?&]|&amp;)locale=/.test(path)) return address;
  return `${path}${path.includes('?') ? separator : '?'}locale=${encodeURIComponent(locale)}${hash === -1 ? '' : address.slice(hash)}`;
}

/** Every local href and form action of a rendered page with `?locale=` added (see withLocale). */
export function localizeLinks(html: string, locale: string): string {
  return html.replace(/\b(href|action)="(\/[^"]*)"/g, (_whole, attribute: string, address: string) => `${attribute}="${withLocale(address, locale, '&amp;')}"`);
}

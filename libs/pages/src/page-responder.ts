import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { I18n } from '@app/i18n';
import { localizeLinks, PageLanguages, withLocale } from './page-language';
import { PageRenderer, type View } from './page-renderer';
import { PageSession } from './page-session';

/** What a page handler answers: a rendered view, or a redirect. */
export type PageResult =
  | { view: View; title: string; status?: number; data?: Record<string, unknown> }
  | { redirect: string; status: 301 | 303 };

/**
 * Sends page results: views rendered into the layout in the page's language, with this response's
 * nonce and CSRF token. A language chosen by `?locale=` stays on the page's links, forms and
 * redirects.
 */
@Injectable()
export class PageResponder {
  constructor(
    private readonly renderer: PageRenderer,
    private readonly session: PageSession,
    private readonly languages: PageLanguages,
    private readonly i18n: I18n,
  ) {}

  send(request: Request, response: Response, result: PageResult): void {
    const { locale, fromQuery } = this.languages.of(request, response);
    if ('redirect' in result) return response.redirect(result.status, fromQuery ? withLocale(result.redirect, locale) : result.redirect);
    const context = {
      nonce: String(response.locals.nonce),
      csrf: this.session.csrfToken(request, response),
      locale,
      dir: this.i18n.language(locale).dir,
      languageMenu: this.languages.menu(request, locale),
      localeParam: fromQuery ? locale : undefined,
    };
    const html = this.renderer.render(result.view, result.title, result.data ?? {}, context);
    response
      .status(result.status ?? 200)
      .type('html')
      .setHeader('Content-Language', locale)
      .send(fromQuery ? localizeLinks(html, locale) : html);
  }
}

import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PageRenderer, type View } from './page-renderer';
import { PageSession } from './page-session';

/** What a page handler answers: a rendered view, or a redirect. */
export type PageResult =
  | { view: View; title: string; status?: number; data?: Record<string, unknown> }
  | { redirect: string; status: 301 | 303 };

/** Sends page results: views rendered into the layout with this response's nonce and CSRF token. */
@Injectable()
export class PageResponder {
  constructor(
    private readonly renderer: PageRenderer,
    private readonly session: PageSession,
  ) {}

  send(request: Request, response: Response, result: PageResult): void {
    if ('redirect' in result) return response.redirect(result.status, result.redirect);
    const context = { nonce: String(response.locals.nonce), csrf: this.session.csrfToken(request, response) };
    response
      .status(result.status ?? 200)
      .type('html')
      .send(this.renderer.render(result.view, result.title, result.data ?? {}, context));
  }
}

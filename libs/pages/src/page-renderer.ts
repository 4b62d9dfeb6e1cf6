import { Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The library's own folder: views/ and public/ sit beside src/ (and beside its build in dist/). */
export const PAGES_ROOT = join(__dirname, '..');

export type View = 'reveal' | 'secret' | 'gone' | 'deleted' | 'message' | 'sign-in' | 'tokens';

/** What every page gets besides its own data. */
export interface PageContext {
  /** The CSP nonce of this response, for the one script. */
  nonce: string;
  /** The CSRF token every form carries. */
  csrf: string;
}

/**
 * Server-side rendering with Handlebars: each view is compiled once at start-up and rendered
 * into the layout. `{{...}}` escapes HTML, so data (a secret, a filename) is always text.
 */
@Injectable()
export class PageRenderer {
  private readonly handlebars = Handlebars.create();
  private readonly layout: HandlebarsTemplateDelegate;
  private readonly views = new Map<string, HandlebarsTemplateDelegate>();

  constructor() {
    const dir = join(PAGES_ROOT, 'views');
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.hbs'))) {
      this.views.set(basename(file, '.hbs'), this.handlebars.compile(readFileSync(join(dir, file), 'utf8'), { strict: false }));
    }
    this.layout = this.views.get('layout')!;
  }

  render(view: View, title: string, data: Record<string, unknown>, context: PageContext): string {
    const model = { ...data, ...context, title };
    return this.layout({ ...model, body: this.views.get(view)!(model) });
  }
}

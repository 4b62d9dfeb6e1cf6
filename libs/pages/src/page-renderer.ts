import { Injectable } from '@nestjs/common';
import Handlebars from 'handlebars';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type BrandSettings, InjectSettings, type PageSettings, type Settings } from '@app/config';
import { type Direction, I18n, registerTranslationHelpers } from '@app/i18n';

/** The library's own folder: views/ and public/ sit beside src/ (and beside its build in dist/). */
export const PAGES_ROOT = join(__dirname, '..');

export type View =
  | 'reveal'
  | 'secret'
  | 'gone'
  | 'deleted'
  | 'message'
  | 'sign-in'
  | 'tokens'
  | 'push-form'
  | 'preview'
  | 'dashboard'
  | 'audit'
  | 'expire'
  | 'sign-up'
  | 'first-run'
  | 'link-action'
  | 'email-request'
  | 'reset-password'
  | 'account'
  | 'two-factor'
  | 'two-factor-codes'
  | 'two-factor-verify'
  | 'two-factor-sign-in'
  | `admin/${AdminView}`
  | `requests/${RequestView}`;

/** The administration's views (libs/admin renders them), in views/admin/. */
export type AdminView = 'home' | 'users' | 'pushes' | 'audit' | 'notifications' | 'custom-css';

/** The secret requests' views (libs/requests renders them), in views/requests/. */
export type RequestView = 'owner-form' | 'owner-list' | 'owner-request' | 'owner-close' | 'respond' | 'respond-access' | 'respond-done';

/** An entry of the footer's language menu: a link to this page in that language. */
export interface LanguageLink {
  code: string;
  name: string;
  dir: Direction;
  href: string;
  current: boolean;
}

/** What every page gets besides its own data. */
export interface PageContext {
  /** The CSP nonce of this response, for the one script. */
  nonce: string;
  /** The CSRF token every form carries. */
  csrf: string;
  /** The page's language and its direction, for `<html lang dir>` and `{{t}}`. */
  locale: string;
  dir: Direction;
  /** The footer's language menu; empty when only one language is available. */
  languageMenu: LanguageLink[];
  /** The page's `?locale=` when it chose the language: GET forms carry it on as a field. */
  localeParam?: string;
}

/**
 * Server-side rendering with Handlebars: each view is compiled once at start-up and rendered
 * into the layout, with the shared parts (views/partials/) as partials and the instance's brand
 * and page manners on every page. `{{...}}` escapes HTML, so data (a secret, a filename) is always
 * text; `{{t "key" name=value}}` is a catalogue's message in the page's language (@app/i18n).
 */
@Injectable()
export class PageRenderer {
  private readonly handlebars = Handlebars.create();
  private readonly layout: HandlebarsTemplateDelegate;
  private readonly views = new Map<string, HandlebarsTemplateDelegate>();
  private readonly brand: BrandSettings;
  private readonly manners: PageSettings;
  /** Features whose links the layout and the dashboard show only when they are on. */
  private readonly features: { requests: boolean };

  constructor(@InjectSettings() settings: Settings, i18n: I18n) {
    this.brand = settings.brand;
    this.manners = settings.pages;
    this.features = { requests: settings.requests.enabled };
    registerTranslationHelpers(this.handlebars, i18n.defaultLocale);
    this.handlebars.registerHelper('eq', (a: unknown, b: unknown) => a === b);
    const partials = join(PAGES_ROOT, 'views', 'partials');
    for (const file of hbsFiles(partials)) this.handlebars.registerPartial(basename(file, '.hbs'), readFileSync(join(partials, file), 'utf8'));
    for (const folder of ['', 'admin', 'requests']) {
      const dir = join(PAGES_ROOT, 'views', folder);
      for (const file of hbsFiles(dir)) {
        this.views.set(join(folder, basename(file, '.hbs')), this.handlebars.compile(readFileSync(join(dir, file), 'utf8'), { strict: false }));
      }
    }
    this.layout = this.views.get('layout')!;
  }

  render(view: View, title: string, data: Record<string, unknown>, context: PageContext): string {
    const model = { ...data, ...context, title, brand: this.brand, manners: this.manners, features: this.features, themeLocked: this.manners.themeMode !== 'auto' };
    return this.layout({ ...model, body: this.views.get(view)!(model) });
  }
}

const hbsFiles = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.hbs'));

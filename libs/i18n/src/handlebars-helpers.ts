import type Handlebars from 'handlebars';
import { type MessageKey, type MessageValues, shippedCatalogues, SOURCE_LANGUAGE } from './catalogues';
import { formatDateTime } from './formats';

/**
 * `{{t "key" name=value}}`, in the language of the template's model (`locale` at its root), for
 * the pages and the mails alike; plus `{{dateTime iso}}` in that language. An unknown key fails
 * the render: a raw key never reaches a reader.
 */
export function registerTranslationHelpers(handlebars: typeof Handlebars, fallbackLocale: string = SOURCE_LANGUAGE): void {
  const localeOf = (options: Handlebars.HelperOptions): string => (options.data as { root?: { locale?: string } }).root?.locale ?? fallbackLocale;
  handlebars.registerHelper('t', (key: string, options: Handlebars.HelperOptions) =>
    shippedCatalogues().format(localeOf(options), key as MessageKey, options.hash as MessageValues),
  );
  handlebars.registerHelper('dateTime', (time: string, options: Handlebars.HelperOptions) => formatDateTime(localeOf(options), time));
}

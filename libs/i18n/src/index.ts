/**
 * Languages: the catalogues (../catalogues/<code>.json, ICU MessageFormat, English the source of
 * every key; checked at start), the choice of a page's language (?locale=, the person's
 * preference, Accept-Language by weight, the default), messages and Intl formats in a language,
 * and the Handlebars helpers the pages and the mails share. Below pages and notifications, above
 * config; the API's JSON never goes through it.
 */
export { I18nModule } from './i18n.module';
export { I18n } from './i18n.service';
export { type MessageKey, type MessageValues, shippedCatalogues, SOURCE_LANGUAGE } from './catalogues';
export { type Direction, direction, type Language } from './languages';
export type { LanguageChoice, LanguageHints } from './locale-choice';
export { registerTranslationHelpers } from './handlebars-helpers';
export { formatBytes, formatDateTime, formatDuration, formatNumber, formatTimeFromNow } from './formats';

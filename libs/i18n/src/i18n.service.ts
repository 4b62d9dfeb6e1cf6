import { Injectable } from '@nestjs/common';
import { InjectSettings, type LanguageCode, type Settings } from '@app/config';
import { type Catalogues, type MessageKey, type MessageValues, shippedCatalogues } from './catalogues';
import { formatBytes, formatDateTime, formatDuration, formatNumber, formatTimeFromNow } from './formats';
import { type Language, languageOf } from './languages';
import { chooseLanguage, exactly, type LanguageChoice, type LanguageHints } from './locale-choice';

/**
 * The instance's languages: those enabled (PWP__ENABLED_LANGUAGE_CODES), the default
 * (PWP__DEFAULT_LOCALE, one of them), the choice of a request's language, and messages and
 * formats in a language.
 */
@Injectable()
export class I18n {
  readonly defaultLocale: LanguageCode;
  /** The languages a page or mail may speak, in the list's order. */
  readonly languages: readonly Language[];
  private readonly codes: readonly LanguageCode[];
  private readonly catalogues: Catalogues;

  constructor(@InjectSettings() settings: Settings) {
    this.catalogues = shippedCatalogues();
    const { enabled, defaultLocale } = settings.languages;
    this.defaultLocale = defaultLocale;
    this.codes = enabled;
    this.languages = this.codes.map(languageOf);
  }

  /** The request's language (see chooseLanguage). */
  choose(hints: LanguageHints): LanguageChoice {
    return chooseLanguage(hints, this.codes, this.defaultLocale);
  }

  /** The available language `code` names (any letter case), or undefined. */
  supported(code: string | null | undefined): LanguageCode | undefined {
    return code ? (exactly(code, this.codes) as LanguageCode | undefined) : undefined;
  }

  /** `code` when available, else the default: the language of a mail. */
  orDefault(code: string | null | undefined): LanguageCode {
    return this.supported(code) ?? this.defaultLocale;
  }

  language(code: string): Language {
    return this.languages.find((language) => language.code === code) ?? languageOf(this.defaultLocale);
  }

  t(locale: string, key: MessageKey, values?: MessageValues): string {
    return this.catalogues.format(locale, key, values);
  }

  dateTime(locale: string, time: Date | string | number): string {
    return formatDateTime(locale, time);
  }

  number(locale: string, value: number): string {
    return formatNumber(locale, value);
  }

  duration(locale: string, ms: number): string {
    return formatDuration(locale, ms);
  }

  timeFromNow(locale: string, ms: number): string {
    return formatTimeFromNow(locale, ms);
  }

  bytes(locale: string, bytes: number): string {
    return formatBytes(locale, bytes);
  }
}

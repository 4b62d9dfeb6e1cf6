import { Reader, SettingsError } from './env-reader';
import { group, list, text } from './setting';

/**
 * The reference's enabled languages (its config/settings.yml `enabled_language_codes`), in its
 * spelling: the pages, the mails and notify_emails_to_locale speak these.
 */
export const LANGUAGE_CODES = [
  'ca', 'cs', 'cy', 'da', 'de', 'en', 'en-GB', 'es', 'eu', 'fi', 'fr', 'ga', 'hi', 'hu', 'id', 'is', 'it', 'ja', 'ko', 'lv', 'nl',
  'no', 'pl', 'pt-BR', 'pt-PT', 'ro', 'ru', 'sr', 'sk', 'sv', 'th', 'uk', 'ur', 'zh-CN',
] as const;
export type LanguageCode = (typeof LANGUAGE_CODES)[number];

const BY_LOWER_CASE = new Map<string, LanguageCode>(LANGUAGE_CODES.map((code) => [code.toLowerCase(), code]));

/** The code in the list's spelling (`pt-br` → `pt-BR`), or undefined for anything else. */
export function languageCode(value: string): LanguageCode | undefined {
  return BY_LOWER_CASE.get(value.trim().toLowerCase());
}

const isLanguageCode = (value: string): boolean => languageCode(value) !== undefined;
const CODES_EXPECTATION = `must be language codes among ${LANGUAGE_CODES.join(', ')}`;

export interface LanguageSettings {
  /** The languages people may choose, in the list's order; the default among them. */
  enabled: LanguageCode[];
  defaultLocale: LanguageCode;
}

export const LANGUAGES = group({
  title: 'Languages',
  intro:
    "The pages and mails speak the reference's 34 languages (docs/languages.md); a language shows only once its catalogue is shipped (libs/i18n/catalogues). The API's JSON is the same in every language.",
  settings: {
    enabled: list({
      name: 'PWP__ENABLED_LANGUAGE_CODES',
      default: LANGUAGE_CODES,
      check: { valid: isLanguageCode, expectation: CODES_EXPECTATION },
      meaning: 'The languages people may choose (comma-separated), narrowing the full list; the others are never chosen.',
    }),
    defaultLocale: text({
      name: 'PWP__DEFAULT_LOCALE',
      default: 'en',
      check: { valid: isLanguageCode, expectation: `must be one of ${LANGUAGE_CODES.join(', ')}` },
      meaning: 'The language of a page when neither ?locale=, the person, nor the browser names an enabled one; also the language of mails without one.',
    }),
  },
});

export function readLanguages(read: Reader): LanguageSettings {
  const enabled = [...new Set(read(LANGUAGES.settings.enabled).map((code) => languageCode(code)!))];
  const defaultLocale = languageCode(read(LANGUAGES.settings.defaultLocale))!;
  return { enabled: LANGUAGE_CODES.filter((code) => enabled.includes(code)), defaultLocale };
}

/** The default must be one of the enabled languages, as in the reference. */
export function checkDefaultLocaleEnabled(languages: LanguageSettings): void {
  if (!languages.enabled.includes(languages.defaultLocale)) {
    throw new SettingsError(
      `Invalid setting PWP__DEFAULT_LOCALE: must be one of the enabled languages (PWP__ENABLED_LANGUAGE_CODES: ${languages.enabled.join(', ')}).`,
    );
  }
}

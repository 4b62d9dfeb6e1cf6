import IntlMessageFormat from 'intl-messageformat';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LANGUAGE_CODES, type LanguageCode, SettingsError } from '@app/config';
import { catalogueProblems, type Messages } from './catalogue-check';

/** The library's folder: catalogues/ sits beside src/ (and beside its build in dist/). */
export const CATALOGUES_DIR = join(__dirname, '..', 'catalogues');

/** The language every other catalogue is checked against, and the keys the code names. */
export const SOURCE_LANGUAGE = 'en';

/** A message key: one of the English catalogue's. */
export type MessageKey = keyof typeof import('../catalogues/en.json');

/** What a message's placeholders are filled with. */
export type MessageValues = Record<string, string | number>;

/**
 * The catalogue of every language of the list, checked, with a formatter per message compiled on
 * first use and kept. Adding a language is adding its code to the list and its file, `<code>.json`.
 */
export class Catalogues {
  private readonly compiled = new Map<string, IntlMessageFormat>();

  constructor(private readonly byLocale: ReadonlyMap<LanguageCode, Messages>) {}

  /** The languages, in the list's order. */
  get locales(): LanguageCode[] {
    return [...this.byLocale.keys()];
  }

  has(locale: string): boolean {
    return this.byLocale.has(locale as LanguageCode);
  }

  messages(locale: LanguageCode): Messages {
    return this.byLocale.get(locale) ?? this.byLocale.get(SOURCE_LANGUAGE)!;
  }

  /** The message of `key` in `locale`, its placeholders filled; English for a code not of the list. */
  format(locale: string, key: MessageKey, values: MessageValues = {}): string {
    const language = (this.has(locale) ? locale : SOURCE_LANGUAGE) as LanguageCode;
    const cacheKey = `${language}\u0000${key}`;
    let formatter = this.compiled.get(cacheKey);
    if (!formatter) {
      const message = this.messages(language)[key];
      if (message === undefined) throw new Error(`No message "${key}".`);
      formatter = new IntlMessageFormat(message, language, undefined, { ignoreTag: true });
      this.compiled.set(cacheKey, formatter);
    }
    return String(formatter.format(values));
  }
}

/**
 * Reads and checks the catalogue of every language of the list in `dir`: each present, with
 * exactly English's keys, each message parsing, with English's placeholders and the plural forms
 * its language needs; no other file named as a catalogue. Any problem stops the start, listing them.
 */
export function loadCatalogues(dir = CATALOGUES_DIR): Catalogues {
  const files = new Set(readdirSync(dir).filter((name) => name.endsWith('.json')));
  const read = (file: string): Messages => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Messages;
  const english = read(`${SOURCE_LANGUAGE}.json`);
  const problems = catalogueProblems(SOURCE_LANGUAGE, english, english);
  const byLocale = new Map<LanguageCode, Messages>();
  for (const code of LANGUAGE_CODES) {
    const file = `${code}.json`;
    if (!files.delete(file)) {
      problems.push(`${file} is missing`);
      continue;
    }
    const messages = code === SOURCE_LANGUAGE ? english : read(file);
    if (code !== SOURCE_LANGUAGE) problems.push(...catalogueProblems(code, messages, english));
    byLocale.set(code, messages);
  }
  problems.push(...[...files].map((file) => `${file}: not named by a language code of the list`));
  if (problems.length > 0) {
    const shown = problems.slice(0, 20).join('; ');
    throw new SettingsError(`The language catalogues in ${dir} are not usable: ${shown}${problems.length > 20 ? `; and ${problems.length - 20} more` : ''}.`);
  }
  return new Catalogues(byLocale);
}

let shipped: Catalogues | undefined;

/** The shipped catalogues, read and checked once per process. */
export function shippedCatalogues(): Catalogues {
  shipped ??= loadCatalogues();
  return shipped;
}

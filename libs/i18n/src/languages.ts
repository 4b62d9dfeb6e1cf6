import type { LanguageCode } from '@app/config';

export type Direction = 'ltr' | 'rtl';

/** A language as the menu shows it: its code, its own name, and which way it is written. */
export interface Language {
  code: LanguageCode;
  /** In the language itself ("Deutsch", "日本語", "اردو"), from CLDR through Intl.DisplayNames. */
  name: string;
  dir: Direction;
}

/** The language's name in itself, capitalised as a menu entry starts ("español" → "Español"). */
export function autonym(code: string): string {
  const name = new Intl.DisplayNames([code], { type: 'language' }).of(code) ?? code;
  return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
}

/** Which way the language is written, from CLDR (Intl.Locale's text info): `ur` is right-to-left. */
export function direction(code: string): Direction {
  const locale = new Intl.Locale(code) as Intl.Locale & { textInfo?: { direction?: string }; getTextInfo?: () => { direction?: string } };
  const info = locale.getTextInfo?.() ?? locale.textInfo;
  return info?.direction === 'rtl' ? 'rtl' : 'ltr';
}

export function languageOf(code: LanguageCode): Language {
  return { code, name: autonym(code), dir: direction(code) };
}

import { choice, flag, group } from './setting';

export const THEME_MODES = ['auto', 'light', 'dark'] as const;
export type ThemeMode = (typeof THEME_MODES)[number];

/** The reference's smaller manners of its pages: search engines, colour scheme, blurred payloads. */
export interface PageSettings {
  /** X-Robots-Tag on every answer, a robots meta tag on every page, and a /robots.txt that disallows all. */
  noindex: boolean;
  /** auto: the browser's scheme, with a light/dark toggle it remembers; light or dark: locked, no toggle. */
  themeMode: ThemeMode;
  /** Text payloads blurred on the recipient's page until clicked (and again after 20 s). */
  blurText: boolean;
  /** Likewise for the message of a file push. */
  blurFiles: boolean;
}

export const PAGES = group({
  title: 'Pages',
  intro: "Smaller manners of the pages, under the reference's names.",
  settings: {
    noindex: flag({
      name: 'PWP__NOINDEX',
      default: true,
      meaning: 'Keep search engines out: X-Robots-Tag: noindex, nofollow on every answer, a robots meta tag on every page, and a /robots.txt that disallows everything.',
    }),
    themeMode: choice({
      name: 'PWP__THEME_MODE',
      values: THEME_MODES,
      default: 'auto',
      meaning: "auto: the browser's light or dark scheme, with a toggle the browser remembers; light or dark: that scheme for everyone, no toggle.",
    }),
    blurText: flag({
      name: 'PWP__PW__ENABLE_BLUR',
      default: true,
      meaning: "Blur a text push's payload on the recipient's page until it is clicked, and again 20 seconds later (needs JavaScript; without it the text is plain).",
    }),
    blurFiles: flag({
      name: 'PWP__FILES__ENABLE_BLUR',
      default: true,
      meaning: "Likewise for the message of a file push.",
    }),
  },
});

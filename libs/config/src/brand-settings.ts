import { EnvReader, isHttpUrl } from './env-reader';

/** The instance's name and look on every page, with the reference's PWP__BRAND__* names. */
export interface BrandSettings {
  /** In the header and every page's title; this product's own name unless set. */
  title: string;
  /** Under the title; none unless set (the reference's stock tagline is its own joke). */
  tagline?: string;
  /** A short text in the footer of every page; none unless set. */
  disclaimer?: string;
  /** The footer's links (push, dashboard, tokens, sign-in). */
  showFooterMenu: boolean;
  /**
   * The logo for a light and for a dark colour scheme: a path on this host (`/...`) or an
   * http(s) URL, whose origin the pages' CSP then allows for images. One set alone serves both.
   */
  lightLogo?: string;
  darkLogo?: string;
}

export const DEFAULT_BRAND_TITLE = 'pwpush-api';

const P = 'PWP__BRAND__';
const LOGO_EXPECTATION = 'must be a path on this host starting with / or an absolute http(s) URL';
const isLogoLocation = (value: string): boolean => (value.startsWith('/') && !value.startsWith('//') && !/\s/.test(value)) || isHttpUrl(value);

export function readBrandSettings(read: EnvReader): BrandSettings {
  const lightLogo = read.optional(`${P}LIGHT_LOGO`, isLogoLocation, LOGO_EXPECTATION);
  const darkLogo = read.optional(`${P}DARK_LOGO`, isLogoLocation, LOGO_EXPECTATION);
  return {
    title: read.string(`${P}TITLE`, DEFAULT_BRAND_TITLE),
    tagline: read.optionalString(`${P}TAGLINE`),
    disclaimer: read.optionalString(`${P}DISCLAIMER`),
    showFooterMenu: read.bool(`${P}SHOW_FOOTER_MENU`, true),
    lightLogo: lightLogo ?? darkLogo,
    darkLogo: darkLogo ?? lightLogo,
  };
}

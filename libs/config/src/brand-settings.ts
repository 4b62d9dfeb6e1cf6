import { isHttpUrl, Reader } from './env-reader';
import { flag, group, text } from './setting';

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

const isLogoLocation = (value: string): boolean =>
  (value.startsWith('/') && !value.startsWith('//') && !/\s/.test(value)) || isHttpUrl(value);
const LOGO = {
  check: { valid: isLogoLocation, expectation: 'must be a path on this host starting with / or an absolute http(s) URL' },
  unset: 'the other logo, or none',
};

export const BRAND = group({
  title: 'Brand',
  intro: "The instance's name and look on every page, under the reference's names.",
  settings: {
    title: text({
      name: 'PWP__BRAND__TITLE',
      default: DEFAULT_BRAND_TITLE,
      meaning: "The instance's name in every page's header and title.",
    }),
    tagline: text({ name: 'PWP__BRAND__TAGLINE', unset: 'none', meaning: 'A line under the title.' }),
    disclaimer: text({ name: 'PWP__BRAND__DISCLAIMER', unset: 'none', meaning: 'A short text in the footer of every page.' }),
    showFooterMenu: flag({
      name: 'PWP__BRAND__SHOW_FOOTER_MENU',
      default: true,
      meaning: "The footer's links (push a secret, your pushes, API tokens).",
    }),
    lightLogo: text({
      name: 'PWP__BRAND__LIGHT_LOGO',
      ...LOGO,
      meaning:
        "The logo for a light colour scheme: a path on this host (/...) or an http(s) URL, whose origin the pages' Content-Security-Policy then allows for images.",
    }),
    darkLogo: text({
      name: 'PWP__BRAND__DARK_LOGO',
      ...LOGO,
      meaning: 'The logo for a dark colour scheme, likewise; one logo alone serves both.',
    }),
  },
});

export function readBrandSettings(read: Reader): BrandSettings {
  const s = BRAND.settings;
  const lightLogo = read(s.lightLogo);
  const darkLogo = read(s.darkLogo);
  return {
    title: read(s.title),
    tagline: read(s.tagline),
    disclaimer: read(s.disclaimer),
    showFooterMenu: read(s.showFooterMenu),
    lightLogo: lightLogo ?? darkLogo,
    darkLogo: darkLogo ?? lightLogo,
  };
}

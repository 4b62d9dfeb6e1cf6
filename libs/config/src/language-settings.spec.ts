import { loadSettings } from './settings';
import { settingsErrorFor } from './settings.testing';

describe('the languages and pages settings', () => {
  it('default to the 34 languages, English, and the reference\'s page manners', () => {
    const settings = loadSettings({});
    expect(settings.languages.enabled).toHaveLength(34);
    expect(settings.languages.defaultLocale).toBe('en');
    expect(settings.pages).toEqual({ noindex: true, themeMode: 'auto', blurText: true, blurFiles: true });
  });

  it('read codes in any letter case, in the list\'s spelling and order, without repeats', () => {
    const { languages } = loadSettings({ PWP__ENABLED_LANGUAGE_CODES: 'zh-cn, DE,pt-br,de', PWP__DEFAULT_LOCALE: 'PT-BR' });
    expect(languages).toEqual({ enabled: ['de', 'pt-BR', 'zh-CN'], defaultLocale: 'pt-BR' });
  });

  it('refuse a code outside the list, and a default that is not enabled', () => {
    expect(settingsErrorFor({ PWP__ENABLED_LANGUAGE_CODES: 'en,xx' }).message).toMatch(/^Invalid setting PWP__ENABLED_LANGUAGE_CODES: must be language codes among ca, cs, /);
    expect(settingsErrorFor({ PWP__DEFAULT_LOCALE: 'fr-CA' }).message).toMatch(/^Invalid setting PWP__DEFAULT_LOCALE: must be one of ca, cs, /);
    expect(settingsErrorFor({ PWP__ENABLED_LANGUAGE_CODES: 'de,ja' }).message).toBe(
      'Invalid setting PWP__DEFAULT_LOCALE: must be one of the enabled languages (PWP__ENABLED_LANGUAGE_CODES: de, ja).',
    );
    expect(settingsErrorFor({ PWP__THEME_MODE: 'sepia' }).message).toBe('Invalid setting PWP__THEME_MODE: must be one of auto, light, dark.');
  });

  it('turn the manners off one by one', () => {
    expect(loadSettings({ PWP__NOINDEX: 'false', PWP__THEME_MODE: 'Dark', PWP__PW__ENABLE_BLUR: 'off', PWP__FILES__ENABLE_BLUR: 'no' }).pages).toEqual({
      noindex: false,
      themeMode: 'dark',
      blurText: false,
      blurFiles: false,
    });
  });
});

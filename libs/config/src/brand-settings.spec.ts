import { loadSettings, SettingsError } from './settings';

describe('brand settings', () => {
  it("defaults to this product's name, no tagline, disclaimer or logo, and the footer menu shown", () => {
    expect(loadSettings({}).brand).toEqual({ title: 'pwpush-api', showFooterMenu: true });
  });

  it("reads the reference's PWP__BRAND__* names", () => {
    const brand = loadSettings({
      PWP__BRAND__TITLE: 'Acme Secrets',
      PWP__BRAND__TAGLINE: 'Security first',
      PWP__BRAND__DISCLAIMER: 'Use subject to Acme terms.',
      PWP__BRAND__SHOW_FOOTER_MENU: 'false',
      PWP__BRAND__LIGHT_LOGO: 'https://cdn.example.com/logo.png',
      PWP__BRAND__DARK_LOGO: '/logo-dark.png',
    }).brand;
    expect(brand).toEqual({
      title: 'Acme Secrets',
      tagline: 'Security first',
      disclaimer: 'Use subject to Acme terms.',
      showFooterMenu: false,
      lightLogo: 'https://cdn.example.com/logo.png',
      darkLogo: '/logo-dark.png',
    });
  });

  it('uses one logo for both schemes when only one is set', () => {
    expect(loadSettings({ PWP__BRAND__DARK_LOGO: '/logo.svg' }).brand).toMatchObject({ lightLogo: '/logo.svg', darkLogo: '/logo.svg' });
  });

  it.each(['javascript:alert(1)', '//evil.example.com/logo.png', 'logo.png'])('refuses the logo %s, naming the variable', (value) => {
    expect(() => loadSettings({ PWP__BRAND__LIGHT_LOGO: value })).toThrow(
      new SettingsError('Invalid setting PWP__BRAND__LIGHT_LOGO: must be a path on this host starting with / or an absolute http(s) URL.'),
    );
  });
});

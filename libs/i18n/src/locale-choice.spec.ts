import { acceptedLanguage, chooseLanguage } from './locale-choice';

const AVAILABLE = ['de', 'en', 'en-GB', 'fr', 'ja', 'no', 'pt-BR', 'pt-PT', 'ur', 'zh-CN'];

describe('acceptedLanguage', () => {
  it.each([
    ['de', 'de'],
    ['fr-CA', 'fr'],
    ['en-GB,en;q=0.5', 'en-GB'],
    ['en-AU', 'en'],
    ['EN-gb', 'en-GB'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-PT'],
    ['nb-NO,nb;q=0.9', 'no'],
    ['zh-Hans-CN', 'zh-CN'],
    ['zh', 'zh-CN'],
  ])('%s → %s', (header, expected) => {
    expect(acceptedLanguage(header, AVAILABLE)).toBe(expected);
  });

  it('reads every tag by weight, not only the first', () => {
    expect(acceptedLanguage('xx-YY, ko;q=0.9, ja;q=0.8', AVAILABLE)).toBe('ja');
    expect(acceptedLanguage('de;q=0.2, ur;q=0.9, ja;q=0.5', AVAILABLE)).toBe('ur');
    // Equal weights keep the header's order.
    expect(acceptedLanguage('ja;q=0.5, de;q=0.5', AVAILABLE)).toBe('ja');
    // q=0 means "not this one".
    expect(acceptedLanguage('de;q=0, ja;q=0.1', AVAILABLE)).toBe('ja');
  });

  it('finds nothing for languages not available, Traditional Chinese, wildcards and nonsense', () => {
    for (const header of ['ko', 'zh-TW', 'zh-Hant', '*', '', ';;;', 'q=1']) expect(acceptedLanguage(header, AVAILABLE)).toBeUndefined();
    expect(acceptedLanguage(undefined, AVAILABLE)).toBeUndefined();
  });
});

describe('chooseLanguage', () => {
  const choose = (hints: Parameters<typeof chooseLanguage>[0]) => chooseLanguage(hints, AVAILABLE, 'en');

  it('takes ?locale= first, then the person, then the browser, then the default', () => {
    expect(choose({ query: 'ja', preferred: 'de', acceptLanguage: 'fr' })).toEqual({ locale: 'ja', fromQuery: true });
    expect(choose({ query: 'pt-br' })).toEqual({ locale: 'pt-BR', fromQuery: true });
    expect(choose({ preferred: 'de', acceptLanguage: 'fr' })).toEqual({ locale: 'de', fromQuery: false });
    expect(choose({ acceptLanguage: 'fr' })).toEqual({ locale: 'fr', fromQuery: false });
    expect(choose({})).toEqual({ locale: 'en', fromQuery: false });
  });

  it('passes over what is not an available language', () => {
    expect(choose({ query: 'ko', preferred: 'xx', acceptLanguage: 'ur' })).toEqual({ locale: 'ur', fromQuery: false });
    expect(choose({ query: ['de'], acceptLanguage: 'ja' })).toEqual({ locale: 'ja', fromQuery: false });
    expect(choose({ query: 'fr-CA' })).toEqual({ locale: 'en', fromQuery: false });
  });
});

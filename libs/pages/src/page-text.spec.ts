import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EN, inPageLanguage, text } from './page-text';

const VIEWS = join(__dirname, '..', 'views');
const viewFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? viewFiles(join(dir, entry.name)) : [join(dir, entry.name)]));

describe('page text', () => {
  it('fills placeholders, in the language of the page being answered', () => {
    expect(text('form.daysHint', { min: 1, max: 90 })).toBe('From 1 to 90.');
    inPageLanguage('de', () => expect(text('form.daysHint', { min: 1, max: 90 })).toBe('Von 1 bis 90.'));
    inPageLanguage('ja', () => expect(text('recipient.remaining', { views: 2, expiry: '3 日後' })).toBe('このリンクはあと2 回閲覧でき、3 日後に期限切れになります。'));
  });

  it('has every key the views ask for', () => {
    const used = viewFiles(VIEWS).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\(?t '([\w.]+)'/g)].map((match) => match[1]));
    expect(used.length).toBeGreaterThan(50);
    expect(used.filter((key) => !(key in EN))).toEqual([]);
  });
});

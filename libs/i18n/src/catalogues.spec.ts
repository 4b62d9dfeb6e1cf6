import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { LANGUAGE_CODES } from '@app/config';
import { catalogueProblems, type Messages, neededPluralCategories, parseMessage } from './catalogue-check';
import { CATALOGUES_DIR, loadCatalogues, SOURCE_LANGUAGE } from './catalogues';

const read = (code: string): Messages => JSON.parse(readFileSync(join(CATALOGUES_DIR, `${code}.json`), 'utf8')) as Messages;
const shipped = readdirSync(CATALOGUES_DIR)
  .filter((file) => file.endsWith('.json'))
  .map((file) => basename(file, '.json'));
const english = read(SOURCE_LANGUAGE);

describe('the catalogues', () => {
  it('are named by codes of the list, English among them', () => {
    expect(shipped).toContain(SOURCE_LANGUAGE);
    expect(shipped.filter((code) => !(LANGUAGE_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  // Every catalogue present: exactly English's keys, each message parsing as ICU MessageFormat,
  // English's placeholders (and select values), and the plural forms its language needs.
  it.each(shipped)('%s: complete, and every message sound', (code) => {
    expect(catalogueProblems(code, read(code), english)).toEqual([]);
  });

  it('load as the service loads them at start', () => {
    const catalogues = loadCatalogues();
    expect(catalogues.locales).toEqual(LANGUAGE_CODES);
    expect(catalogues.format('de', 'recipient.remaining', { views: 1, expiry: 'in 2 Tagen' })).toBe(
      'Dieser Link erlaubt noch 1 Aufruf und läuft in 2 Tagen ab.',
    );
  });

  it('are one for every language of the contract', () => {
    expect(LANGUAGE_CODES).toHaveLength(34);
    expect([...shipped].sort()).toEqual([...LANGUAGE_CODES].sort());
  });
});

describe('catalogueProblems', () => {
  const source = { 'a.plain': 'Plain', 'a.count': '{count, plural, one {# view} other {# views}}', 'a.name': 'Hello {name}', 'a.kind': '{kind, select, text {Text} other {Other}}' };

  it('names missing and extra keys', () => {
    const { 'a.plain': _plain, ...rest } = source;
    expect(catalogueProblems('de', { ...rest, 'a.extra': 'Extra' }, source)).toEqual(['de: "a.plain" is missing', 'de: "a.extra" is not in the English catalogue']);
  });

  it('names a message that does not parse, and placeholders other than English', () => {
    expect(catalogueProblems('de', { ...source, 'a.name': 'Hallo {name' }, source)[0]).toMatch(/^de: "a.name" does not parse as ICU MessageFormat/);
    expect(catalogueProblems('de', { ...source, 'a.name': 'Hallo {nom}' }, source)).toEqual(['de: "a.name" has placeholders {nom} where English has {name}']);
    expect(catalogueProblems('de', { ...source, 'a.kind': '{kind, select, text {Text} file {Datei} other {Andere}}' }, source)).toEqual([
      'de: "a.kind" has placeholders {kind: file|other|text} where English has {kind: other|text}',
    ]);
  });

  it('names plural forms the language needs but lacks, and forms it does not use', () => {
    expect(catalogueProblems('ru', { ...source, 'a.count': '{count, plural, one {# просмотр} other {# просмотров}}' }, source)).toEqual([
      'ru: "a.count" {count, plural} lacks few, many',
    ]);
    expect(catalogueProblems('ja', { ...source, 'a.count': '{count, plural, one {# 回} other {# 回}}' }, source)).toEqual([
      'ja: "a.count" {count, plural} has one, which ja does not use',
    ]);
    expect(catalogueProblems('ja', { ...source, 'a.count': '{count, plural, other {# 回}}' }, source)).toEqual([]);
    // A plural needs its `other`, as ICU requires.
    expect(catalogueProblems('de', { ...source, 'a.count': '{count, plural, one {# Aufruf}}' }, source)[0]).toMatch(/does not parse/);
  });

  it('needs the forms whole numbers reach, not those of millions or fractions', () => {
    expect([...neededPluralCategories('fr')].sort()).toEqual(['one', 'other']);
    expect([...neededPluralCategories('cy')].sort()).toEqual(['few', 'many', 'one', 'other', 'two', 'zero']);
    expect([...neededPluralCategories('ur')].sort()).toEqual(['one', 'other']);
    expect(() => parseMessage('<b>{name}</b>')).not.toThrow();
  });
});

describe('loadCatalogues', () => {
  it('stops the start, naming the problems, when a catalogue is incomplete, absent or misnamed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'catalogues-'));
    for (const code of LANGUAGE_CODES.filter((code) => code !== 'fr')) writeFileSync(join(dir, `${code}.json`), JSON.stringify({ 'a.one': 'One', 'a.two': 'Two' }));
    writeFileSync(join(dir, 'de.json'), JSON.stringify({ 'a.one': 'Eins' }));
    writeFileSync(join(dir, 'german.json'), JSON.stringify({}));
    expect(() => loadCatalogues(dir)).toThrow(/not usable: de: "a.two" is missing; fr.json is missing; german.json: not named by a language code of the list\.$/);
  });
});

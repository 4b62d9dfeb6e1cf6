import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';

/** A catalogue: message keys to ICU MessageFormat texts. */
export type Messages = Readonly<Record<string, string>>;

/** One placeholder of a message: its name, and for select the values it chooses among. */
interface Placeholder {
  name: string;
  selectValues?: string;
}

/**
 * The plural categories a language must write: those whole numbers from 0 to 1000 fall in (the
 * pages count views, days, files and seconds). CLDR's others are allowed but not required: French's
 * `many` is for millions, Czech's for fractions.
 */
export function neededPluralCategories(locale: string, type: 'cardinal' | 'ordinal' = 'cardinal'): ReadonlySet<string> {
  return remembered(NEEDED, `${locale} ${type}`, () => {
    const rules = new Intl.PluralRules(locale, { type });
    const needed = new Set<string>();
    for (let n = 0; n <= 1000; n++) needed.add(rules.select(n));
    return needed;
  });
}

/** Every plural category CLDR has for the language. */
export function pluralCategories(locale: string, type: 'cardinal' | 'ordinal' = 'cardinal'): ReadonlySet<string> {
  return remembered(KNOWN, `${locale} ${type}`, () => new Set(new Intl.PluralRules(locale, { type }).resolvedOptions().pluralCategories));
}

// Computed once per process: every catalogue checked at start asks the same few questions.
const NEEDED = new Map<string, ReadonlySet<string>>();
const KNOWN = new Map<string, ReadonlySet<string>>();
const ENGLISH_PLACEHOLDERS = new Map<string, string>();

function remembered<T>(cache: Map<string, T>, key: string, compute: () => T): T {
  let value = cache.get(key);
  if (value === undefined) cache.set(key, (value = compute()));
  return value;
}

/** The message parsed as the formatter parses it (tags are text: the views escape HTML themselves). */
export function parseMessage(message: string): MessageFormatElement[] {
  return parse(message, { ignoreTag: true, requiresOtherClause: true });
}

/**
 * What is wrong with one language's catalogue against the English one: keys missing or extra,
 * messages that do not parse, placeholders other than English's, select values other than
 * English's, and plural forms the language needs but lacks (or has none of).
 */
export function catalogueProblems(locale: string, messages: Messages, english: Messages): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(english)) if (!(key in messages)) problems.push(`${locale}: "${key}" is missing`);
  for (const [key, message] of Object.entries(messages)) {
    if (!(key in english)) {
      problems.push(`${locale}: "${key}" is not in the English catalogue`);
      continue;
    }
    if (typeof message !== 'string' || message.trim() === '') {
      problems.push(`${locale}: "${key}" is not a text`);
      continue;
    }
    problems.push(...messageProblems(locale, key, message, english[key]).map((problem) => `${locale}: "${key}" ${problem}`));
  }
  return problems;
}

function messageProblems(locale: string, key: string, message: string, englishMessage: string): string[] {
  // Plain text on both sides (no braces: no argument, plural or select) parses as itself.
  if (!/[{}]/.test(message) && !/[{}]/.test(englishMessage)) return [];
  let elements: MessageFormatElement[];
  try {
    elements = parseMessage(message);
  } catch (error) {
    return [`does not parse as ICU MessageFormat (${(error as Error).message})`];
  }
  const problems = pluralProblems(locale, elements);
  const own = describe(placeholdersOf(elements));
  const expected = remembered(ENGLISH_PLACEHOLDERS, englishMessage, () => describe(placeholdersOf(parseMessage(englishMessage))));
  if (own !== expected) problems.push(`has placeholders ${own || '(none)'} where English has ${expected || '(none)'}`);
  return problems;
}

/** Plural arguments' categories against the language's: none missing that it needs, none it does not have. */
function pluralProblems(locale: string, elements: MessageFormatElement[]): string[] {
  const problems: string[] = [];
  walk(elements, (element) => {
    if (element.type !== TYPE.plural) return;
    const categories = Object.keys(element.options).filter((option) => !option.startsWith('='));
    const needed = neededPluralCategories(locale, element.pluralType);
    const known = pluralCategories(locale, element.pluralType);
    const missing = [...needed].filter((category) => !categories.includes(category)).sort();
    const foreign = categories.filter((category) => !known.has(category));
    if (missing.length > 0) problems.push(`{${element.value}, plural} lacks ${missing.join(', ')}`);
    if (foreign.length > 0) problems.push(`{${element.value}, plural} has ${foreign.join(', ')}, which ${locale} does not use`);
  });
  return problems;
}

function placeholdersOf(elements: MessageFormatElement[]): Placeholder[] {
  const found: Placeholder[] = [];
  walk(elements, (element) => {
    if (element.type === TYPE.select) found.push({ name: element.value, selectValues: Object.keys(element.options).sort().join('|') });
    else if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time || element.type === TYPE.plural) {
      found.push({ name: element.value });
    }
  });
  return found;
}

/** "{count} {kind: file|text}", sorted and without repeats: what a message needs from its caller. */
function describe(placeholders: Placeholder[]): string {
  const names = new Map<string, string>();
  for (const { name, selectValues } of placeholders) names.set(name, selectValues ? `{${name}: ${selectValues}}` : (names.get(name) ?? `{${name}}`));
  return [...names.keys()].sort().map((name) => names.get(name)).join(' ');
}

function walk(elements: MessageFormatElement[], visit: (element: MessageFormatElement) => void): void {
  for (const element of elements) {
    visit(element);
    if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) walk(option.value, visit);
    if (element.type === TYPE.tag) walk(element.children, visit);
  }
}

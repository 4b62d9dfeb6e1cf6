import { formatBytes } from './env-reader';

/** Stops start-up: `Invalid setting <NAME>: <expectation>.` */
export type Fail = (expectation: string) => never;

/**
 * One entry of a settings table: everything known about one environment variable. The typed
 * value, its validation and message, the `_FILE` handling of secrets, `.env.example` and
 * docs/configuration.md all come from these.
 */
export interface Setting<T> {
  /** The variable's full name, as the operator writes it. */
  readonly name: string;
  /** One line: what it does, for the operator. */
  readonly meaning: string;
  /** May be given as `<name>_FILE` (a mounted secret); never quoted in a message. */
  readonly secret: boolean;
  /** Which constructor below made it: how its text is read. */
  readonly kind: 'boolean' | 'integer' | 'size' | 'duration' | 'choice' | 'text' | 'list' | 'custom';
  /** The kind of value and its limits, in words ("integer, 1 to 65535"). */
  readonly type: string;
  /** The default as written after `=` in .env.example; '' when unset means something else (`unset`). */
  readonly defaultText: string;
  /** What leaving it unset means, when that is not a value ("true on port 465, false otherwise"). */
  readonly unset?: string;
  /** A sample value for .env.example, written commented out, where no default says enough. */
  readonly example?: string;
  /** The value from the variable's trimmed text (undefined when unset or blank), or `fail` saying what it must be. */
  parse(text: string | undefined, fail: Fail): T;
}

interface Facts {
  name: string;
  meaning: string;
  secret?: boolean;
  example?: string;
}
/** For settings without a default value: what unset means. */
interface Unset {
  unset: string;
}
interface Check {
  valid: (value: string) => boolean;
  /** The message's end, after `Invalid setting <NAME>: `; it never quotes the value. */
  expectation: string;
}

const setting = <T>(facts: Facts, rest: Omit<Setting<T>, keyof Facts | 'secret'>): Setting<T> => ({
  name: facts.name,
  meaning: facts.meaning,
  secret: facts.secret ?? false,
  ...(facts.example === undefined ? {} : { example: facts.example }),
  ...rest,
});

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

/** true, 1, yes, on / false, 0, no, off, in any case. */
export function flag(spec: Facts & { default: boolean }): Setting<boolean>;
export function flag(spec: Facts & Unset): Setting<boolean | undefined>;
export function flag(spec: Facts & ({ default: boolean } | Unset)): Setting<boolean | undefined> {
  const fallback = 'default' in spec ? spec.default : undefined;
  return setting(spec, {
    kind: 'boolean',
    type: 'boolean',
    defaultText: fallback === undefined ? '' : String(fallback),
    unset: 'unset' in spec ? spec.unset : undefined,
    parse(text, fail) {
      const value = text?.toLowerCase();
      if (value === undefined) return fallback;
      if (TRUE_WORDS.has(value)) return true;
      if (FALSE_WORDS.has(value)) return false;
      return fail('must be true or false');
    },
  });
}

export interface Range {
  min: number;
  max: number;
  default: number;
}

/** A setting whose limits another setting may narrow when read (a range's MAX is at least its MIN). */
export interface BoundedSetting extends Setting<number>, Readonly<Range> {
  within(bounds: Partial<Range>): Setting<number>;
}

/** A whole number within [min, max]; `unit` is for the reader ("ms", "seconds"). */
export function integer(spec: Facts & Range & { unit?: string }): BoundedSetting;
export function integer(spec: Facts & Omit<Range, 'default'> & Unset & { unit?: string }): Setting<number | undefined>;
export function integer(
  spec: Facts & Omit<Range, 'default'> & Partial<Range> & Partial<Unset> & { unit?: string },
): Setting<number | undefined> {
  const unit = spec.unit === undefined ? '' : ` (${spec.unit})`;
  return bounded(spec, 'integer', `integer, ${spec.min} to ${spec.max}${unit}`, String, (text, { min, max }, fail) => {
    const parsed = /^-?\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) fail(`must be an integer from ${min} to ${max}`);
    return parsed;
  });
}

const BYTE_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** A size in bytes: a whole number, or one with a KiB, MiB or GiB suffix ("100MiB"). */
export function size(spec: Facts & Range): BoundedSetting {
  return bounded(
    spec,
    'size',
    `size, ${formatBytes(spec.min)} to ${formatBytes(spec.max)} (bytes, or with KiB, MiB, GiB)`,
    formatBytes,
    (text, { min, max }, fail) => {
      const match = /^(\d{1,13})\s*(B|KiB|MiB|GiB)?$/.exec(text);
      const parsed = match ? Number(match[1]) * (BYTE_UNITS[match[2] ?? 'B'] ?? 1) : NaN;
      if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
        fail(`must be a size from ${formatBytes(min)} to ${formatBytes(max)}: bytes, or a number with KiB, MiB or GiB`);
      }
      return parsed;
    },
  );
}

function bounded(
  spec: Facts & Omit<Range, 'default'> & Partial<Range> & Partial<Unset>,
  kind: 'integer' | 'size',
  type: string,
  show: (value: number) => string,
  parse: (text: string, bounds: Omit<Range, 'default'>, fail: Fail) => number,
): BoundedSetting {
  const entry = setting<number>(spec, {
    kind,
    type,
    defaultText: spec.default === undefined ? '' : show(spec.default),
    unset: spec.unset,
    parse: (text, fail) => (text === undefined ? spec.default! : parse(text, spec, fail)),
  });
  return {
    ...entry,
    min: spec.min,
    max: spec.max,
    // An optional integer (no default) is never narrowed: its overload does not return this type.
    default: spec.default!,
    within: (narrower) => bounded({ ...spec, ...narrower }, kind, type, show, parse),
  };
}

const MINUTE_MS = 60_000;
const DURATION_UNITS_MS: Record<string, number> = {
  minute: MINUTE_MS,
  hour: 60 * MINUTE_MS,
  day: 1440 * MINUTE_MS,
  week: 7 * 1440 * MINUTE_MS,
  month: 30 * 1440 * MINUTE_MS,
  year: 365 * 1440 * MINUTE_MS,
};

/** Milliseconds from "3 months", "30 days", "12 hours"...; unset or "disabled" means none. A month counts 30 days, a year 365. */
export function duration(spec: Facts): Setting<number | undefined>;
/** A duration that is always on: `default` when unset, within [min, max] milliseconds; "disabled" is refused. */
export function duration(spec: Facts & { default: string; min: number; max: number }): Setting<number>;
export function duration(spec: Facts & { default?: string; min?: number; max?: number }): Setting<number | undefined> {
  const required = spec.default !== undefined;
  const expectation = required
    ? `must be a duration from ${describeMs(spec.min!)} to ${describeMs(spec.max!)}, such as "15 minutes", "2 hours" or "1 day"`
    : 'must be a duration such as "30 days", "3 months" or "1 year" (units: minutes, hours, days, weeks, months, years), or "disabled"';
  const parseText = (value: string, fail: Fail): number => {
    const match = /^(\d{1,6})\s*(minute|hour|day|week|month|year)s?$/.exec(value);
    const ms = match && Number(match[1]) > 0 ? Number(match[1]) * DURATION_UNITS_MS[match[2]] : NaN;
    if (Number.isNaN(ms) || (required && (ms < spec.min! || ms > spec.max!))) return fail(expectation);
    return ms;
  };
  return setting(spec, {
    kind: 'duration',
    type: required
      ? `duration, ${describeMs(spec.min!)} to ${describeMs(spec.max!)} ("15 minutes", "2 hours", "1 day", "3 weeks")`
      : 'duration ("30 days", "3 months", "1 year"; minutes to years) or disabled',
    defaultText: spec.default ?? 'disabled',
    parse(text, fail) {
      const value = text?.toLowerCase();
      if (value === undefined) return required ? parseText(spec.default!, fail) : undefined;
      if (!required && (value === 'disabled' || value === 'false')) return undefined;
      return parseText(value, fail);
    },
  });
}

/** "5 minutes", "90 days": the largest unit that divides the value. */
function describeMs(ms: number): string {
  const [unit, size] = Object.entries(DURATION_UNITS_MS)
    .reverse()
    .find(([, unitMs]) => ms % unitMs === 0) ?? ['minute', MINUTE_MS];
  const count = ms / size;
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** One of a few words, in any case; read in lower case. */
export function choice<const V extends string>(spec: Facts & { values: readonly V[]; default: NoInfer<V> }): Setting<V>;
export function choice<const V extends string>(spec: Facts & { values: readonly V[] } & Unset): Setting<V | undefined>;
export function choice<const V extends string>(
  spec: Facts & { values: readonly V[]; default?: V } & Partial<Unset>,
): Setting<V | undefined> {
  const allowed = new Set<string>(spec.values);
  return setting(spec, {
    kind: 'choice',
    type: `one of ${spec.values.join(', ')}`,
    defaultText: spec.default ?? '',
    unset: spec.unset,
    parse(text, fail) {
      const value = text?.toLowerCase() ?? spec.default;
      if (value === undefined) return undefined;
      if (!allowed.has(value)) fail(`must be one of ${spec.values.join(', ')}`);
      return value as V;
    },
  });
}

/**
 * Text as given. With `check`, it must pass it (the type in the reference is the expectation's
 * words); without one any text goes, which is how secrets are read: never described in a message.
 */
export function text(spec: Facts & { default: string; check?: Check; type?: string }): Setting<string>;
export function text(spec: Facts & { check?: Check; type?: string } & Unset): Setting<string | undefined>;
export function text(spec: Facts & { default?: string; check?: Check; type?: string } & Partial<Unset>): Setting<string | undefined> {
  return setting(spec, {
    kind: 'text',
    type: spec.type ?? (spec.check ? described(spec.check.expectation) : 'text'),
    defaultText: spec.default ?? '',
    unset: spec.unset,
    parse(value, fail) {
      if (value !== undefined && spec.check && !spec.check.valid(value)) fail(spec.check.expectation);
      return value ?? spec.default;
    },
  });
}

/** Items separated by commas (or `separator`), each passing `check`; unset is the default, or an empty list. */
export function list(spec: Facts & { check: Check; separator?: RegExp } & ({ default: readonly string[] } | Unset)): Setting<string[]> {
  const fallback = 'default' in spec ? spec.default : [];
  return setting(spec, {
    kind: 'list',
    type: `list: ${described(spec.check.expectation)}`,
    defaultText: fallback.join(spec.separator ? ' ' : ','),
    unset: 'unset' in spec ? spec.unset : undefined,
    parse(value, fail) {
      if (value === undefined) return [...fallback];
      const items = value
        .split(spec.separator ?? /,/)
        .map((item) => item.trim())
        .filter(Boolean);
      if (!items.every(spec.check.valid)) fail(spec.check.expectation);
      return items;
    },
  });
}

/** A value with its own reader (a database URL): `parse` gets the default when unset. */
export function custom<T>(spec: Facts & { default: string; type: string; parse: (text: string, fail: Fail) => T }): Setting<T> {
  return setting(spec, {
    kind: 'custom',
    type: spec.type,
    defaultText: spec.default,
    parse: (value, fail) => spec.parse(value ?? spec.default, fail),
  });
}

/** "must be an absolute http(s) URL" → "an absolute http(s) URL"; "must not contain whitespace" → "text without whitespace". */
const described = (expectation: string): string => expectation.replace(/^must be /, '').replace(/^must not contain /, 'text without ');

/** A group of settings: one table, one section of .env.example and of docs/configuration.md. */
export interface SettingGroup<S extends Record<string, Setting<unknown>> = Record<string, Setting<unknown>>> {
  readonly title: string;
  /** What the group is for and what holds for all of it; a paragraph in both generated files. */
  readonly intro?: string;
  /** Written commented out in .env.example: they matter only once their feature is chosen (single sign-on, S3). */
  readonly commentedOut?: boolean;
  readonly settings: S;
}

export function group<S extends Record<string, Setting<unknown>>>(spec: SettingGroup<S>): SettingGroup<S> {
  return spec;
}

/** Every value of a group's table, under the table's keys. */
export type ValuesOf<S extends Record<string, Setting<unknown>>> = { -readonly [K in keyof S]: S[K] extends Setting<infer T> ? T : never };

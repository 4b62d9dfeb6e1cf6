import { isIP } from 'node:net';
import { DatabaseTarget, parseDatabaseUrl } from './database-url';

/** The environment as read at start-up (process.env, `.env`, `_FILE` secrets). */
export type Env = Record<string, string | undefined>;

export interface Range {
  default: number;
  min: number;
  max: number;
}

/** Raised for any setting that cannot be used; the message names the variable. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);
const MINUTE_MS = 60_000;
const BYTE_UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/** The largest unit that divides the size: 16777216 → "16MiB". */
export function formatBytes(bytes: number): string {
  for (const unit of ['GiB', 'MiB', 'KiB']) {
    if (bytes % BYTE_UNITS[unit] === 0) return `${bytes / BYTE_UNITS[unit]}${unit}`;
  }
  return `${bytes} B`;
}

const DURATION_UNITS_MS: Record<string, number> = {
  minute: MINUTE_MS,
  hour: 60 * MINUTE_MS,
  day: 1440 * MINUTE_MS,
  week: 7 * 1440 * MINUTE_MS,
  month: 30 * 1440 * MINUTE_MS,
  year: 365 * 1440 * MINUTE_MS,
};

/** Small typed accessors over the environment; every failure names the variable. */
export class EnvReader {
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  private fail(name: string, expectation: string): never {
    throw new SettingsError(`Invalid setting ${name}: ${expectation}.`);
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** Any non-blank value, as given (a secret: never checked by pattern, so never described in a message). */
  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  optional(name: string, valid: (v: string) => boolean, expectation: string): string | undefined {
    const value = this.raw(name);
    if (value !== undefined && !valid(value)) this.fail(name, expectation);
    return value;
  }

  list(name: string, valid: (v: string) => boolean, expectation: string, separator: RegExp = /,/): string[] {
    const items = (this.raw(name) ?? '').split(separator).map((item) => item.trim()).filter(Boolean);
    if (!items.every(valid)) this.fail(name, expectation);
    return items;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (TRUE_WORDS.has(value)) return true;
    if (FALSE_WORDS.has(value)) return false;
    return this.fail(name, 'must be true or false');
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = /^-?\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.fail(name, `must be an integer from ${min} to ${max}`);
    }
    return parsed;
  }

  optionalInt(name: string, min: number, max: number): number | undefined {
    return this.raw(name) === undefined ? undefined : this.int(name, min, min, max);
  }

  oneOf(name: string, fallback: string, allowed: Set<string>): string {
    const value = this.raw(name)?.toLowerCase() ?? fallback;
    if (!allowed.has(value)) this.fail(name, `must be one of ${[...allowed].join(', ')}`);
    return value;
  }

  /** `<name>_DEFAULT`, `_MIN` and `_MAX`, each within the hard limits and consistent with each other. */
  range(name: string, hard: Range): Range {
    const min = this.int(`${name}_MIN`, hard.min, hard.min, hard.max);
    const max = this.int(`${name}_MAX`, hard.max, min, hard.max);
    const fallback = Math.min(Math.max(hard.default, min), max);
    return { min, max, default: this.int(`${name}_DEFAULT`, fallback, min, max) };
  }

  /** A size in bytes: a whole number, or one with a KiB, MiB or GiB suffix ("100MiB"). */
  bytes(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const match = /^(\d{1,13})\s*(B|KiB|MiB|GiB)?$/.exec(value);
    const parsed = match ? Number(match[1]) * (BYTE_UNITS[match[2] ?? 'B'] ?? 1) : NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.fail(name, `must be a size from ${formatBytes(min)} to ${formatBytes(max)}: bytes, or a number with KiB, MiB or GiB`);
    }
    return parsed;
  }

  /** "3 months", "30 days", "12 hours"...; unset or "disabled" means none. A month counts 30 days, a year 365. */
  duration(name: string): number | undefined {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined || value === 'disabled' || value === 'false') return undefined;
    const match = /^(\d{1,6})\s*(minute|hour|day|week|month|year)s?$/.exec(value);
    if (!match || Number(match[1]) === 0) {
      this.fail(name, 'must be a duration such as "30 days", "3 months" or "1 year" (units: minutes, hours, days, weeks, months, years), or "disabled"');
    }
    return Number(match[1]) * DURATION_UNITS_MS[match[2]];
  }

  database(name: string, fallback: string): DatabaseTarget {
    return parseDatabaseUrl(this.raw(name) ?? fallback, (expectation) => this.fail(name, expectation));
  }
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

export function isCidr(value: string): boolean {
  const [address, bits, ...rest] = value.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
}

/** A DNS host name: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** A DNS host name; digits and dots only is a mistyped address (999.1.1.1), never a name. */
export function isHostName(value: string): boolean {
  return HOST_NAME.test(value) && !/^[\d.]+$/.test(value);
}

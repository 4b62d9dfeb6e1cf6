/**
 * Dates, durations, numbers and sizes in a language, through Intl (CLDR data shipped with Node):
 * no word of these is in a catalogue. Formatters are costly to build, so each is built once per
 * language and kept.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>();

function cached<F extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>(key: string, make: () => F): F {
  let formatter = cache.get(key) as F | undefined;
  if (!formatter) {
    formatter = make();
    cache.set(key, formatter);
  }
  return formatter;
}

/** A moment in UTC, with the zone said ("27 Nov 2026, 14:05 UTC"): the same for every reader, whenever they read it. */
export function formatDateTime(locale: string, time: Date | string | number): string {
  const format = cached(
    `date:${locale}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZone: 'UTC',
        timeZoneName: 'short',
      }),
  );
  return format.format(new Date(time));
}

export function formatNumber(locale: string, value: number): string {
  return cached(`number:${locale}`, () => new Intl.NumberFormat(locale)).format(value);
}

type LifetimeUnit = 'day' | 'hour' | 'minute';

/** Whole days from a day on, whole hours under a day, minutes (at least one) under an hour. */
function lifetime(ms: number): [number, LifetimeUnit] {
  if (ms >= DAY_MS) return [Math.floor(ms / DAY_MS), 'day'];
  if (ms >= HOUR_MS) return [Math.floor(ms / HOUR_MS), 'hour'];
  return [Math.max(Math.ceil(ms / MINUTE_MS), 1), 'minute'];
}

/** A length of time ("7 days", "7 Tage", "7 日間" is the catalogue's business; this says "7 日"). */
export function formatDuration(locale: string, ms: number): string {
  const [amount, unit] = lifetime(ms);
  return cached(`duration:${locale}:${unit}`, () => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' })).format(amount);
}

/** A time from now ("in 7 days", "in 7 Tagen", "7 日後"), as a sentence about expiry needs it. */
export function formatTimeFromNow(locale: string, ms: number): string {
  const [amount, unit] = lifetime(ms);
  return cached(`relative:${locale}`, () => new Intl.RelativeTimeFormat(locale, { numeric: 'always' })).format(amount, unit);
}

const SIZE_UNITS = [
  ['gigabyte', 1e9],
  ['megabyte', 1e6],
  ['kilobyte', 1e3],
] as const;

/** A size in the language's short units, decimal as their names say ("16.8 MB", "16,8 MB"). */
export function formatBytes(locale: string, bytes: number): string {
  const [unit, factor] = SIZE_UNITS.find(([, size]) => bytes >= size) ?? ['byte', 1];
  return cached(`bytes:${locale}:${unit}`, () => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: unit === 'byte' ? 'long' : 'short', maximumFractionDigits: 1 })).format(
    bytes / factor,
  );
}

import { isIP } from 'node:net';
import type { Setting, SettingGroup, ValuesOf } from './setting';

/** The environment as read at start-up (process.env, `.env`, `_FILE` secrets). */
export type Env = Record<string, string | undefined>;

/** Raised for any setting that cannot be used; the message names the variable. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** The largest unit that divides the size: 16777216 → "16MiB". */
export function formatBytes(bytes: number): string {
  for (const [unit, factor] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes % factor === 0) return `${bytes / factor}${unit}`;
  }
  return `${bytes} B`;
}

/** Reads settings from one environment snapshot: blank is unset, and every failure names the variable. */
export interface Reader {
  <T>(setting: Setting<T>): T;
  isSet(setting: Setting<unknown>): boolean;
  /** Every setting of a group, in the table's order, under the table's keys. */
  all<S extends Record<string, Setting<unknown>>>(group: SettingGroup<S>): ValuesOf<S>;
}

export function readerOf(env: Env): Reader {
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const read = <T>(setting: Setting<T>): T =>
    setting.parse(text(setting.name), (expectation) => {
      throw new SettingsError(`Invalid setting ${setting.name}: ${expectation}.`);
    });
  return Object.assign(read, {
    isSet: (setting: Setting<unknown>) => text(setting.name) !== undefined,
    all: <S extends Record<string, Setting<unknown>>>(group: SettingGroup<S>) =>
      Object.fromEntries(Object.entries(group.settings).map(([key, setting]) => [key, read(setting)])) as ValuesOf<S>,
  });
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

import { AsyncLocalStorage } from 'node:async_hooks';
import type { FileSettings } from '@app/config';
import { formatBytes, formatDateTime, formatDuration, formatTimeFromNow, type MessageKey, type MessageValues, shippedCatalogues, SOURCE_LANGUAGE } from '@app/i18n';

/**
 * The pages' text, in the page's language. Every string lives in the catalogues
 * (libs/i18n/catalogues/<code>.json; English, en.json, is the source of the keys): views say
 * `{{t "key" name=value}}`, handlers `text("key", { name: value })`. Kept as the pages' one door to
 * the catalogues, so a page adds a string by adding its key to en.json (and to every other
 * catalogue: the catalogue test names what is missing) and calling `text` as before.
 */
export type TextKey = MessageKey;

/** The English catalogue: the keys, and the text the other languages translate. */
export const EN = shippedCatalogues().messages(SOURCE_LANGUAGE);

/** The page request being answered: its language (see PageLanguages), for `text` in handlers. */
const requestLocale = new AsyncLocalStorage<string>();

/** Runs the rest of a page request with `locale` as the language of its `text`. */
export function inPageLanguage(locale: string, next: () => void): void {
  requestLocale.run(locale, next);
}

/** The language of the page being answered; the source language outside any (never the case for a page). */
export function pageLocale(): string {
  return requestLocale.getStore() ?? SOURCE_LANGUAGE;
}

/** The message of `key` in the page's language, its placeholders filled. */
export function text(key: TextKey, values: MessageValues = {}): string {
  return shippedCatalogues().format(pageLocale(), key, values);
}

/** A moment in the page's language, in UTC ("27 Nov 2026, 14:05 UTC"). */
export const dateText = (time: string | number | Date): string => formatDateTime(pageLocale(), time);

/** A size in the page's language ("16.8 MB"). */
export const sizeText = (bytes: number): string => formatBytes(pageLocale(), bytes);

/** The file limits a form with files states beside its file input, in the page's language. */
export const filesHintText = (files: Pick<FileSettings, 'maxUploads' | 'maxFileBytes' | 'maxPushBytes'>): string =>
  text('form.filesHint', { count: files.maxUploads, fileSize: sizeText(files.maxFileBytes), pushSize: sizeText(files.maxPushBytes) });

/** A time from now in the page's language ("in 7 days"). */
export const fromNowText = (ms: number): string => formatTimeFromNow(pageLocale(), ms);

/** A length of time in the page's language ("3 days", "15 minutes"). */
export const durationText = (ms: number): string => formatDuration(pageLocale(), ms);

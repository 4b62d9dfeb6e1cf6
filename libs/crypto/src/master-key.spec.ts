import type { Logger } from '@nestjs/common';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Env, loadSettings, SettingsError } from '@app/config';
import { resolveMasterKey } from './master-key';

const KEY = 'ab'.repeat(32);

describe('resolveMasterKey', () => {
  let dataDir: string;
  let warn: jest.Mock;
  let logger: Logger;

  beforeEach(() => {
    // A directory that does not exist yet, inside a fresh temporary one.
    dataDir = join(mkdtempSync(join(tmpdir(), 'pwpush-key-')), 'data');
    warn = jest.fn();
    logger = { warn } as unknown as Logger;
  });

  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  const resolve = (env: Env = {}) => resolveMasterKey(loadSettings({ DATA_DIR: dataDir, ...env }), logger);
  const keyFile = () => join(dataDir, 'master.key');

  it('returns PWPUSH_MASTER_KEY when set, writing no file', () => {
    expect(resolve({ PWPUSH_MASTER_KEY: KEY })).toBe(KEY);
    expect(resolve({ PWPUSH_MASTER_KEY: KEY, NODE_ENV: 'production' })).toBe(KEY);
    expect(existsSync(dataDir)).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('refuses to start in production without a key, naming PWPUSH_MASTER_KEY, and writes no file', () => {
    expect(() => resolve({ NODE_ENV: 'production' })).toThrow(SettingsError);
    expect(() => resolve({ NODE_ENV: 'production' })).toThrow(/^Invalid setting PWPUSH_MASTER_KEY: required when NODE_ENV=production/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('outside production generates a key once in DATA_DIR/master.key (mode 0600) and reuses it', () => {
    const first = resolve();
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(keyFile(), 'utf8')).toBe(`${first}\n`);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('PWPUSH_MASTER_KEY');
    expect(warn.mock.calls[0][0]).not.toContain(first);

    expect(resolve()).toBe(first);
    expect(resolve()).toBe(first);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('gives different directories different keys', () => {
    const first = resolve();
    const other = join(dataDir, 'elsewhere');
    expect(resolveMasterKey(loadSettings({ DATA_DIR: other }), logger)).not.toBe(first);
  });

  it('reads a key file written by an operator, upper case and surrounding whitespace included', () => {
    resolve();
    writeFileSync(keyFile(), `  ${'CD'.repeat(32)}\r\n`);
    expect(resolve()).toBe('CD'.repeat(32));
  });

  it.each([
    ['garbage', 'not a key\n'],
    ['a short key', `${'ab'.repeat(31)}\n`],
    ['an empty file', ''],
    ['two keys', `${KEY}\n${KEY}\n`],
  ])('treats %s in the key file as an error and leaves the file alone', (_name, content) => {
    resolve();
    writeFileSync(keyFile(), content);
    expect(() => resolve()).toThrow(SettingsError);
    expect(() => resolve()).toThrow(`The key file ${keyFile()} is corrupt; set PWPUSH_MASTER_KEY or restore the file.`);
    expect(readFileSync(keyFile(), 'utf8')).toBe(content);
  });

  it('prefers PWPUSH_MASTER_KEY over a corrupt key file', () => {
    resolve();
    writeFileSync(keyFile(), 'garbage');
    expect(resolve({ PWPUSH_MASTER_KEY: KEY })).toBe(KEY);
  });
});

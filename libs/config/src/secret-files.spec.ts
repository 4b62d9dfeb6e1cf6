import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSecretFiles, SECRET_SETTINGS } from './secret-files';
import { loadSettings } from './settings';
import { settingsErrorFor } from './settings.testing';

const KEY = 'ab'.repeat(32);

describe('readSecretFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pwpush-secrets-'));
  const file = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it.each(SECRET_SETTINGS)('reads %s from the file its _FILE variable names, less one trailing newline', (name) => {
    const sut = readSecretFiles({ [`${name}_FILE`]: file(name, 'the-value\n') });
    expect(sut[name]).toBe('the-value');
  });

  it('feeds the settings: a production master key and a database URL from files', () => {
    const sut = loadSettings(
      readSecretFiles({
        NODE_ENV: 'production',
        PWPUSH_MASTER_KEY_FILE: file('key', `${KEY}\r\n`),
        DATABASE_URL_FILE: file('url', 'postgres://pwpush:p%40ss@db:5432/pwpush\n'),
      }),
    );
    expect(sut).toMatchObject({ masterKey: KEY, database: { type: 'postgres', url: 'postgres://pwpush:p%40ss@db:5432/pwpush' } });
  });

  it('leaves the environment as it is without _FILE variables, and ignores _FILE for settings that are not secret', () => {
    expect(readSecretFiles({ PWPUSH_MASTER_KEY: KEY, PORT_FILE: file('port', '80') })).toEqual({ PWPUSH_MASTER_KEY: KEY, PORT_FILE: join(dir, 'port') });
  });

  it('treats an empty X as unset beside X_FILE (as an empty value is unset everywhere)', () => {
    expect(readSecretFiles({ METRICS_TOKEN: '', METRICS_TOKEN_FILE: file('token', 't0ken') }).METRICS_TOKEN).toBe('t0ken');
  });

  it('refuses X and X_FILE together, naming both', () => {
    const message = settingsErrorFor({ DATABASE_URL: 'mysql://u:p@db/x', DATABASE_URL_FILE: file('db', 'mysql://u:other@db/x') }, readSecretFiles).message;
    expect(message).toBe('Invalid setting DATABASE_URL_FILE: DATABASE_URL is set as well; set one of them.');
  });

  it.each([
    ['a missing file', () => join(dir, 'absent'), 'no such file'],
    ['a directory', () => dir, 'it is a directory'],
    ['a path through a file', () => join(file('plain', 'x'), 'key'), 'a part of the path is not a directory'],
  ])('names the variable and the path of %s, and why it is unreadable', (_case, path, reason) => {
    expect(settingsErrorFor({ PWPUSH_MASTER_KEY_FILE: path() }, readSecretFiles).message).toBe(`Invalid setting PWPUSH_MASTER_KEY_FILE: cannot read ${path()} (${reason}).`);
  });

  // Given by a stand-in reader: root, which runs CI, may read any file.
  it('says permission denied for a file the process may not read', () => {
    const path = join(dir, 'locked');
    const denied = new Error('EACCES: permission denied') as Error & { code: string };
    denied.code = 'EACCES';
    const sut = () =>
      readSecretFiles({ PWPUSH_MASTER_KEY_FILE: path }, () => {
        throw denied;
      });
    expect(sut).toThrow(`Invalid setting PWPUSH_MASTER_KEY_FILE: cannot read ${path} (permission denied).`);
  });

  it('never quotes the content in a message', () => {
    const secret = 'mysql://u:Hunter2-Secret@db/x';
    const message = settingsErrorFor({ DATABASE_URL: secret, DATABASE_URL_FILE: file('db2', secret) }, readSecretFiles).message;
    expect(message).not.toContain('Hunter2');
    const bad = loadErrorFor({ PWPUSH_MASTER_KEY_FILE: file('badkey', 'Hunter2-not-a-key') });
    expect(bad).toBe('Invalid setting PWPUSH_MASTER_KEY: must be 64 hexadecimal characters.');
  });
});

function loadErrorFor(env: Record<string, string>): string {
  try {
    loadSettings(readSecretFiles(env));
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('loadSettings accepted the environment');
}

import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Settings, SettingsError } from '@app/config';

const KEY_FILE = 'master.key';

/**
 * The current encryption key: PWPUSH_MASTER_KEY, or outside production a key kept in
 * `<DATA_DIR>/master.key`, created on first use. (Production without a key never gets here:
 * loadSettings refuses it.)
 */
export function resolveMasterKey(settings: Settings, logger = new Logger('Crypto')): string {
  if (settings.masterKey) return settings.masterKey;
  const path = join(settings.dataDir, KEY_FILE);
  try {
    const stored = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f]{64}$/i.test(stored)) return stored;
    throw new SettingsError(`The key file ${path} is corrupt; set PWPUSH_MASTER_KEY or restore the file.`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const generated = randomBytes(32).toString('hex');
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(path, `${generated}\n`, { mode: 0o600, flag: 'wx' });
  logger.warn(`PWPUSH_MASTER_KEY is not set: generated a development key in ${path}. Set PWPUSH_MASTER_KEY in production.`);
  return generated;
}

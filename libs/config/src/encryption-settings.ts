import { SettingsError } from './env-reader';
import { group, list, text } from './setting';

const MASTER_KEY = /^[0-9a-fA-F]{64}$/;

export const ENCRYPTION = group({
  title: 'Encryption at rest',
  intro:
    'Payloads, notes and files are encrypted with AES-256-GCM under the master key. To rotate it, put the new key in PWPUSH_MASTER_KEY and the old one in PWPUSH_MASTER_KEY_PREVIOUS.',
  settings: {
    masterKey: text({
      name: 'PWPUSH_MASTER_KEY',
      secret: true,
      check: { valid: (v) => MASTER_KEY.test(v), expectation: 'must be 64 hexadecimal characters' },
      unset: 'outside production, a key generated into DATA_DIR/master.key (with a warning)',
      meaning: 'The key (openssl rand -hex 32); required when NODE_ENV=production.',
    }),
    previousMasterKeys: list({
      name: 'PWPUSH_MASTER_KEY_PREVIOUS',
      secret: true,
      check: { valid: (v) => MASTER_KEY.test(v), expectation: 'must be comma-separated 64-hex-character keys' },
      unset: 'none',
      meaning: 'Earlier keys, so values encrypted before a rotation still decrypt.',
    }),
  },
});

/** Checked before anything starts, so the operator gets one clear line rather than a key per replica. */
export function checkMasterKeyInProduction(production: boolean, masterKey: string | undefined): void {
  if (production && !masterKey) {
    throw new SettingsError(
      'Invalid setting PWPUSH_MASTER_KEY: required when NODE_ENV=production (64 hex characters, e.g. from `openssl rand -hex 32`).',
    );
  }
}

import { Env, loadSettings, SettingsError } from './settings';

/**
 * For the specs: the SettingsError that reading `env` throws (by default loadSettings; also
 * readSecretFiles), failing the test when it throws nothing or something else.
 */
export function settingsErrorFor(env: Env, read: (env: Env) => unknown = loadSettings): SettingsError {
  try {
    read(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error(`the settings accepted ${JSON.stringify(Object.keys(env))}`);
}

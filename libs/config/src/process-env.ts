import { Env, SettingsError } from './settings';
import { readSecretFiles } from './secret-files';

/** In the working directory, as `.env.example` says ("Copy to .env"). */
const ENV_FILE = '.env';

/**
 * The one place that touches process.env: entry points pass its snapshot to loadSettings. A `.env`
 * file, when there is one, fills in what the environment does not set (the environment wins, as
 * with `node --env-file`); it is loaded into process.env itself, so the libraries that read
 * NODE_ENV there see the same value. Secret settings given as `<NAME>_FILE` are read here too.
 */
export function readProcessEnv(): Env {
  loadEnvFile();
  return readSecretFiles({ ...process.env });
}

function loadEnvFile(): void {
  try {
    process.loadEnvFile(ENV_FILE);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return;
    throw new SettingsError(`Cannot read ${ENV_FILE} in ${process.cwd()}: ${(error as Error).message}`);
  }
}

import { Env } from './settings';

/** The one place that touches process.env: entry points pass its snapshot to loadSettings. */
export function readProcessEnv(): Env {
  return { ...process.env };
}

import { readFileSync } from 'node:fs';
import { Env, SettingsError } from './env-reader';
import { ALL_SETTINGS } from './groups';

/**
 * The settings that hold secrets (those marked secret in their tables). Each may instead come from
 * a file named by `<NAME>_FILE`, the Docker and Kubernetes convention for mounted secrets, which
 * keeps the value out of the process's environment (and so out of `/proc/<pid>/environ`,
 * `docker inspect` and child processes).
 */
export const SECRET_SETTINGS: readonly string[] = ALL_SETTINGS.filter((setting) => setting.secret).map((setting) => setting.name);

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * The environment with every `<NAME>_FILE` of a secret setting replaced by `<NAME>` holding the
 * file's content, less one trailing newline (what `echo` and most editors add). Messages name the
 * variable and the path, never the content.
 */
export function readSecretFiles(env: Env, readFile = (path: string) => readFileSync(path, 'utf8')): Env {
  const resolved: Env = { ...env };
  for (const name of SECRET_SETTINGS) {
    const fileVariable = `${name}_FILE`;
    const path = env[fileVariable]?.trim();
    if (!path) continue;
    if (env[name]?.trim()) throw new SettingsError(`Invalid setting ${fileVariable}: ${name} is set as well; set one of them.`);
    try {
      resolved[name] = readFile(path).replace(/\r?\n$/, '');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const reason = typeof code === 'string' ? (REASONS[code] ?? code) : 'unreadable';
      throw new SettingsError(`Invalid setting ${fileVariable}: cannot read ${path} (${reason}).`);
    }
  }
  return resolved;
}

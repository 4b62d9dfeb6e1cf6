import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package version, read once from package.json (found from both src/ and dist/). */
function readPackageVersion(): string {
  for (let dir = __dirname; ; dir = join(dir, '..')) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      if (dir === join(dir, '..')) return '0.0.0';
    }
  }
}

export const APPLICATION_VERSION = readPackageVersion();

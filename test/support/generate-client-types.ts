import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Jest global setup for the e2e suite: regenerates the client types from the committed
 * openapi.json (as `npm run openapi:client` does), so the generated-client test is written
 * against the current document. `npm run openapi:check` fails if the committed types are stale.
 */
export default function generateClientTypes(): void {
  const root = join(__dirname, '..', '..');
  const cli = join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  execFileSync(process.execPath, [cli, join(root, 'openapi.json'), '--output', join(root, 'test', 'generated', 'openapi.d.ts')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

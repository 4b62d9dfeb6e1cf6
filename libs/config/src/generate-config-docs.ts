import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_EXAMPLE_PATH, REFERENCE_PATH, renderEnvExample, renderReference } from './config-reference';
import { SETTING_GROUPS } from './groups';

/**
 * Writes .env.example and docs/configuration.md from the settings tables (`npm run config:docs`,
 * from the repository root). config-reference.spec.ts fails when the committed files differ.
 */
const ROOT = join(__dirname, '..', '..', '..');

if (require.main === module) {
  writeFileSync(join(ROOT, ENV_EXAMPLE_PATH), renderEnvExample(SETTING_GROUPS));
  writeFileSync(join(ROOT, REFERENCE_PATH), renderReference(SETTING_GROUPS));
  process.stdout.write(`Wrote ${ENV_EXAMPLE_PATH} and ${REFERENCE_PATH}.\n`);
}

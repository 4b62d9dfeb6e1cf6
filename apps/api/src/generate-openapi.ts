import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { loadSettings } from '@app/config';
import { AppModule } from './app.module';
import { buildOpenApiDocument, serializeOpenApi } from './openapi';

/**
 * `write`: regenerates openapi.json and the client types generated from it.
 * `check`: regenerates both into a temporary directory and fails when the committed files differ.
 * Run through ts-node from the repository root (npm run openapi / openapi:check).
 */
const ROOT = join(__dirname, '..', '..', '..');
const DOCUMENT = join(ROOT, 'openapi.json');
const CLIENT_TYPES = join(ROOT, 'test', 'generated', 'openapi.d.ts');

async function generateDocument(): Promise<string> {
  // The document comes from module metadata only: an in-memory database, nothing migrated, no key file.
  const settings = loadSettings({
    DATABASE_URL: 'sqlite::memory:',
    DB_MIGRATE_ON_START: 'false',
    PWPUSH_MASTER_KEY: '0'.repeat(64),
    LOG_LEVEL: 'silent',
  });
  const app = await NestFactory.create(AppModule.forRoot(settings), { logger: false, bodyParser: false, abortOnError: false });
  try {
    return serializeOpenApi(buildOpenApiDocument(app));
  } finally {
    await app.close();
  }
}

/** Client types as `npm run openapi:client` writes them (openapi-typescript's output is stable). */
export function generateClientTypes(document: string, output: string): void {
  const cli = join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');
  execFileSync(process.execPath, [cli, document, '--output', output], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function firstDifference(expected: string, actual: string): string {
  const want = expected.split('\n');
  const got = actual.split('\n');
  const line = want.findIndex((text, i) => text !== got[i]);
  const at = line === -1 ? want.length : line;
  return `first difference at line ${at + 1}:\n  committed: ${got[at] ?? '<end of file>'}\n  generated: ${want[at] ?? '<end of file>'}`;
}

async function main(mode: string | undefined): Promise<number> {
  if (mode === 'write') {
    writeFileSync(DOCUMENT, await generateDocument());
    generateClientTypes(DOCUMENT, CLIENT_TYPES);
    process.stdout.write(`Wrote ${relative(ROOT, DOCUMENT)} and ${relative(ROOT, CLIENT_TYPES)}.\n`);
    return 0;
  }
  if (mode === 'check') {
    const dir = mkdtempSync(join(tmpdir(), 'pwpush-openapi-'));
    try {
      const document = join(dir, 'openapi.json');
      const types = join(dir, 'openapi.d.ts');
      writeFileSync(document, await generateDocument());
      generateClientTypes(document, types);
      const stale = [
        [DOCUMENT, document],
        [CLIENT_TYPES, types],
      ].filter(([committed, fresh]) => readOrEmpty(committed) !== readFileSync(fresh, 'utf8'));
      for (const [committed, fresh] of stale) {
        process.stderr.write(
          `${relative(ROOT, committed)} is out of date with the code; ${firstDifference(readFileSync(fresh, 'utf8'), readOrEmpty(committed))}\n`,
        );
      }
      if (stale.length) {
        process.stderr.write('Run `npm run openapi` and commit the result.\n');
        return 1;
      }
      process.stdout.write(`${relative(ROOT, DOCUMENT)} and ${relative(ROOT, CLIENT_TYPES)} are up to date.\n`);
      return 0;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stderr.write('usage: generate-openapi.ts write|check\n');
  return 2;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

if (require.main === module) {
  main(process.argv[2]).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`OpenAPI generation failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

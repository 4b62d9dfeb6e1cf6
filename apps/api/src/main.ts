import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadSettings, readProcessEnv, SettingsError } from '@app/config';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

async function bootstrap(): Promise<void> {
  const settings = loadSettings(readProcessEnv());
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), { bodyParser: false, bufferLogs: true });
  configureApp(app, settings);
  await app.listen(settings.port);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(app, settings.shutdownTimeoutMs));
  }
}

/**
 * Stops accepting connections, lets in-flight requests finish and closes the database; gives up
 * after the timeout so a stuck request cannot hold a rolling update forever.
 */
async function shutdown(app: NestExpressApplication, timeoutMs: number): Promise<void> {
  setTimeout(() => {
    process.stderr.write(`Shutdown did not finish within ${timeoutMs} ms; exiting.\n`);
    process.exit(1);
  }, timeoutMs).unref();
  await app.close();
  process.exit(0);
}

bootstrap().catch((error: unknown) => {
  // Settings errors are the operator's to fix: one clear line, no stack trace.
  const message = error instanceof SettingsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});

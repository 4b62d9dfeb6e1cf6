import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadSettings, readProcessEnv, SettingsError } from '@app/config';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';
import { closeConnectionsWhenDraining } from './graceful-shutdown';

async function bootstrap(): Promise<void> {
  const settings = loadSettings(readProcessEnv());
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), { bodyParser: false, bufferLogs: true, abortOnError: false });
  configureApp(app, settings);
  const connections = closeConnectionsWhenDraining(app.getHttpServer());
  await app.listen(settings.port);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(app, settings.shutdownTimeoutMs, connections.drain));
  }
}

/**
 * Stops accepting connections, lets in-flight requests finish and closes the database; gives up
 * after the timeout so a stuck request cannot hold a rolling update forever. Nest's close runs,
 * in order: the scheduler stops (beforeApplicationShutdown), the HTTP server closes and waits
 * for in-flight requests, then the database and Redis connections close (onApplicationShutdown),
 * so requests being drained still have their database.
 */
async function shutdown(app: NestExpressApplication, timeoutMs: number, drain: () => void): Promise<void> {
  setTimeout(() => {
    process.stderr.write(`Shutdown did not finish within ${timeoutMs} ms; exiting.\n`);
    process.exit(1);
  }, timeoutMs).unref();
  new Logger('Shutdown').log(`Shutting down: no new connections; finishing in-flight requests (at most ${timeoutMs} ms).`);
  drain();
  await app.close();
  process.exit(0);
}

bootstrap().catch((error: unknown) => {
  // Settings errors are the operator's to fix: one clear line, no stack trace.
  const message = error instanceof SettingsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});

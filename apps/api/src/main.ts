import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import pino from 'pino';
import { describeStartupFailure, loadSettings, readProcessEnv, Settings, settingsWarnings } from '@app/config';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';
import { closeConnectionsWhenDraining } from './graceful-shutdown';

async function bootstrap(settings: Settings): Promise<void> {
  // Nest's own console logger never writes: its lines are held until configureApp installs the
  // JSON logger and printed at listen, or dropped when the start fails (then failToStart says why, once).
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(settings), { bodyParser: false, logger: false, bufferLogs: true, abortOnError: false });
  configureApp(app, settings);
  for (const warning of settingsWarnings(settings)) new Logger('Settings').warn(warning);
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

/**
 * One line on stderr, a JSON log line like every other (pino's shape, level fatal), saying why in
 * words and which setting to change; then exit code 1. Written synchronously, so exit loses nothing.
 */
function failToStart(error: unknown, settings?: Settings): never {
  const logger = pino({ level: 'fatal' }, pino.destination({ fd: 2, sync: true }));
  logger.fatal({ context: 'Startup' }, `Failed to start: ${describeStartupFailure(error, settings)}`);
  process.exit(1);
}

let settings: Settings | undefined;
try {
  settings = loadSettings(readProcessEnv());
} catch (error) {
  failToStart(error);
}
bootstrap(settings).catch((error: unknown) => failToStart(error, settings));

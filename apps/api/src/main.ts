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
}

bootstrap().catch((error: unknown) => {
  // Settings errors are the operator's to fix: one clear line, no stack trace.
  const message = error instanceof SettingsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`Failed to start: ${message}\n`);
  process.exit(1);
});

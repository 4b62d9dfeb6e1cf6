import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { dataSourceOptions, runMigrations } from '@app/database';

/** A user mistake (bad argument, unknown user, ...): printed without a stack trace, exit code 2. */
export class CommandError extends Error {}

export interface Command {
  summary: string;
  run(flags: Map<string, string>, settings: Settings): Promise<void>;
}

export const COMMANDS: Record<string, Command> = {
  'migrations:run': {
    summary: 'apply pending database migrations (under the MySQL migration lock)',
    run: async (flags, settings) => {
      if (flags.size > 0) throw new CommandError('migrations:run takes no options.');
      const dataSource = await new DataSource(dataSourceOptions(settings)).initialize();
      try {
        await runMigrations(dataSource);
        const pending = await dataSource.showMigrations();
        process.stdout.write(`${JSON.stringify({ migrations: 'up-to-date', pending })}\n`);
      } finally {
        await dataSource.destroy();
      }
    },
  },
};

import type { Logger } from '@nestjs/common';
import type { SchedulerRegistry } from '@nestjs/schedule';
import { errorCode } from './errors';

/**
 * Runs `work` every `intervalMs`, registered as `name` (so it stops with the app), never two
 * rounds at once in this process. A failed round (the database briefly away) is logged by its
 * type and code only, never its message (driver errors can quote SQL parameters), and the next
 * tick tries again: the work must be safe to repeat, and to run in every replica at once.
 */
export function scheduleExclusive(registry: SchedulerRegistry, name: string, intervalMs: number, logger: Logger, work: () => Promise<unknown>): void {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      await work();
    } catch (error) {
      const code = errorCode(error);
      logger.error(`${name} failed: ${error instanceof Error ? error.name : 'error'}${code ? ` (${code})` : ''}`);
    } finally {
      running = false;
    }
  };
  registry.addInterval(name, setInterval(() => void round(), intervalMs));
}

/** Repeats a batch operation (it returns how many it did) until a batch comes back short; the total. */
export async function drainInBatches(batchSize: number, batchOperation: (batch: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await batchOperation(batchSize);
    total += done;
    if (done < batchSize) return total;
  }
}

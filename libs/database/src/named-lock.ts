import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/**
 * MySQL named locks (GET_LOCK), held by one pooled connection for the duration of the work.
 * On SQLite, a single-process database, the work simply runs.
 */
@Injectable()
export class NamedLocks {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` while holding the lock; waits up to `waitSeconds` for it (0: only if free now).
   * Returns `{ acquired: false }` without running the work when the lock is held elsewhere.
   */
  async withLock<T>(name: string, waitSeconds: number, work: () => Promise<T>): Promise<{ acquired: true; result: T } | { acquired: false }> {
    if (this.dataSource.options.type !== 'mysql') return { acquired: true, result: await work() };
    const holder = this.dataSource.createQueryRunner();
    try {
      const [row] = (await holder.query('SELECT GET_LOCK(?, ?) AS acquired', [name, waitSeconds])) as { acquired: number | string | null }[];
      if (Number(row?.acquired) !== 1) return { acquired: false };
      try {
        return { acquired: true, result: await work() };
      } finally {
        await holder.query('SELECT RELEASE_LOCK(?)', [name]);
      }
    } finally {
      await holder.release();
    }
  }
}

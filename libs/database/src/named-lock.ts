import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { errorCode } from '@app/common';
import { engineOf } from './engine';

/** PostgreSQL's lock_not_available: lock_timeout ran out while waiting. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Named locks held by one pooled connection for the duration of the work: MySQL's GET_LOCK,
 * PostgreSQL's session-level advisory locks (keyed by a 64-bit number derived from the name). On
 * SQLite, a single-process database, the work simply runs.
 */
@Injectable()
export class NamedLocks {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Runs `work` while holding the lock; waits up to `waitSeconds` for it (0: only if free now).
   * Returns `{ acquired: false }` without running the work when the lock is held elsewhere.
   */
  async withLock<T>(name: string, waitSeconds: number, work: () => Promise<T>): Promise<{ acquired: true; result: T } | { acquired: false }> {
    const engine = engineOf(this.dataSource);
    if (engine === 'sqlite') return { acquired: true, result: await work() };
    const holder = this.dataSource.createQueryRunner();
    try {
      const lock = engine === 'mysql' ? mysqlLock(holder, name) : postgresLock(holder, name);
      if (!(await lock.acquire(waitSeconds))) return { acquired: false };
      try {
        return { acquired: true, result: await work() };
      } finally {
        await lock.release();
      }
    } finally {
      await holder.release();
    }
  }
}

interface HeldLock {
  acquire(waitSeconds: number): Promise<boolean>;
  release(): Promise<void>;
}

function mysqlLock(holder: QueryRunner, name: string): HeldLock {
  return {
    acquire: async (waitSeconds) => {
      const [row] = (await holder.query('SELECT GET_LOCK(?, ?) AS acquired', [name, waitSeconds])) as { acquired: number | string | null }[];
      return Number(row?.acquired) === 1;
    },
    release: async () => {
      await holder.query('SELECT RELEASE_LOCK(?)', [name]);
    },
  };
}

/**
 * The advisory lock's key: the first 8 bytes of the name's SHA-256, as a signed 64-bit number
 * (a string, as bigint parameters travel). The same name gives the same key in every process.
 */
export function advisoryLockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

function postgresLock(holder: QueryRunner, name: string): HeldLock {
  const key = advisoryLockKey(name);
  return {
    acquire: async (waitSeconds) => {
      if (waitSeconds === 0) {
        const [row] = (await holder.query('SELECT pg_try_advisory_lock($1) AS acquired', [key])) as { acquired: boolean }[];
        return row?.acquired === true;
      }
      // pg_advisory_lock waits without a bound of its own; lock_timeout gives it one.
      await holder.query(`SET lock_timeout = ${Math.round(waitSeconds * 1000)}`);
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [key]);
        return true;
      } catch (error) {
        if (errorCode(error) === LOCK_NOT_AVAILABLE) return false;
        throw error;
      } finally {
        await holder.query('RESET lock_timeout');
      }
    },
    release: async () => {
      await holder.query('SELECT pg_advisory_unlock($1)', [key]);
    },
  };
}

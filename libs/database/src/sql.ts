import { Injectable } from '@nestjs/common';
import { DataSource, QueryResult } from 'typeorm';
import { engineOf } from './engine';
import { Statement, WriteBatch, WriteResult, WrittenBatch } from './write-batch';

/** Thrown inside a SQLite transaction to roll it back when a guard changed nothing. */
class GuardFailed extends Error {}

interface SqliteStatement {
  run(...parameters: unknown[]): { changes: number; lastInsertRowid: number | bigint };
}

/** SQLite's handle under TypeORM: better-sqlite3's synchronous Database. */
interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  transaction<T>(work: () => T): () => T;
}

/**
 * A statement written with `?` placeholders as PostgreSQL takes it: `$1..$n` (string literals
 * left alone), and an INSERT returns its row's id, which MySQL and SQLite report by themselves.
 */
export function forPostgres(sql: string): string {
  let n = 0;
  const text = sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === '?' ? `$${++n}` : match));
  return /^\s*INSERT\b/i.test(text) ? `${text} RETURNING id` : text;
}

/**
 * Plain parameterised SQL for the hot paths (create, retrieve, audit): `?` placeholders,
 * unquoted snake_case identifiers and TRUE/FALSE for booleans give one text that SQLite, MySQL
 * and PostgreSQL all run (rewritten once per text for PostgreSQL, see forPostgres), and a
 * constant text lets better-sqlite3 reuse its prepared statement. The ORM's query building and
 * save-then-reload cost more than the queries themselves on these paths.
 */
@Injectable()
export class Sql {
  private readonly postgres: boolean;
  /** Statement texts rewritten for PostgreSQL; the callers use a few constant texts. */
  private readonly rewritten = new Map<string, string>();
  /** SQLite's prepared statements for writeIf, by text (the same few constant texts). */
  private readonly prepared = new Map<string, SqliteStatement>();

  constructor(private readonly dataSource: DataSource) {
    this.postgres = engineOf(dataSource) === 'postgres';
  }

  /**
   * Runs a batch: its guard and, only when that changed a row, the statements after it; what they
   * wrote, or null when the guard (or a later statement marked `guard`) changed nothing, which then
   * leaves nothing written. When a statement after the guard is `atomic` (an event: it must commit
   * with its change or not at all) or a guard, they all run in one transaction; otherwise one after
   * another (an audit entry alone is not worth a transaction's two round trips). On SQLite it is
   * always one transaction, run synchronously on the one connection, so no other request's
   * statement can slip into it (and one commit costs less than two).
   */
  async run(batch: WriteBatch): Promise<WrittenBatch | null> {
    const statements = batch.run();
    let results: WriteResult[] | null;
    if (engineOf(this.dataSource) === 'sqlite') results = this.sqliteTransaction(batch, statements);
    else if (!statements.slice(1).some((statement) => statement.atomic || statement.guard)) results = await this.writeInTurn(batch, statements);
    else results = await this.transaction(batch, statements);
    if (!results) return null;
    const written = new WrittenBatch(results);
    for (const statement of statements) statement.written?.(written);
    return written;
  }

  /** `guard`, then `then`, as one batch of plain statements (see run). */
  async writeIf(guard: Statement, then: Statement[]): Promise<WriteResult[] | null> {
    const batch = new WriteBatch(guard);
    batch.addAll(then);
    return (await this.run(batch))?.results.slice() ?? null;
  }

  private async transaction(batch: WriteBatch, statements: readonly Statement[]): Promise<WriteResult[] | null> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      try {
        const results: WriteResult[] = [];
        for (const statement of statements) {
          const sql = this.postgres ? this.textForPostgres(statement.sql) : statement.sql;
          const result = this.resultOf(await runner.query(sql, batch.parametersOf(statement, results), true));
          if (statement.guard && result.affected === 0) {
            await runner.rollbackTransaction();
            return null;
          }
          results.push(result);
        }
        await runner.commitTransaction();
        return results;
      } catch (error) {
        await runner.rollbackTransaction();
        throw error;
      }
    } finally {
      await runner.release();
    }
  }

  /** Without a transaction: only the first statement is a guard here (run takes a transaction otherwise). */
  private async writeInTurn(batch: WriteBatch, statements: readonly Statement[]): Promise<WriteResult[] | null> {
    const results: WriteResult[] = [];
    for (const statement of statements) {
      results.push(await this.write(statement.sql, batch.parametersOf(statement, results)));
      if (results[0].affected === 0) return null;
    }
    return results;
  }

  private sqliteTransaction(batch: WriteBatch, statements: readonly Statement[]): WriteResult[] | null {
    const handle = (this.dataSource.driver as unknown as { databaseConnection: SqliteHandle }).databaseConnection;
    try {
      return handle.transaction(() => {
        const results: WriteResult[] = [];
        for (const statement of statements) {
          const { changes, lastInsertRowid } = this.sqlitePrepared(handle, statement.sql).run(...batch.parametersOf(statement, results));
          // better-sqlite3 rolls back a transaction whose function throws, and commits one that returns.
          if (statement.guard && changes === 0) throw new GuardFailed();
          results.push({ affected: changes, insertId: Number(lastInsertRowid) });
        }
        return results;
      })();
    } catch (error) {
      if (error instanceof GuardFailed) return null;
      throw error;
    }
  }

  /**
   * Inserts a row unless one with the same unique key exists (then nothing happens, and no error):
   * `insert` is a plain INSERT ... VALUES, which each engine is told to leave be on a conflict.
   * For rows that later statements update under a condition (a counter), made once and kept.
   */
  async insertUnlessExists(insert: string, parameters: unknown[]): Promise<void> {
    const engine = engineOf(this.dataSource);
    // MySQL's INSERT IGNORE would also silence other errors (a missing foreign key); this only the duplicate.
    const tail = engine === 'mysql' ? ' ON DUPLICATE KEY UPDATE id = id' : ' ON CONFLICT DO NOTHING';
    await this.write(`${insert}${tail}`, parameters);
  }

  async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return (await this.execute(sql, parameters)).records as T[];
  }

  async write(sql: string, parameters: unknown[]): Promise<WriteResult> {
    return this.resultOf(await this.execute(sql, parameters));
  }

  private resultOf(result: QueryResult): WriteResult {
    // PostgreSQL answers the RETURNING row, MySQL a result header, better-sqlite3 the last row id.
    const raw = result.raw as { insertId?: number } | number | bigint | undefined;
    const insertId = this.postgres ? (result.records[0] as { id?: number } | undefined)?.id : typeof raw === 'object' ? raw.insertId : raw;
    return { affected: result.affected ?? 0, insertId: Number(insertId ?? 0) };
  }

  private async execute(sql: string, parameters: unknown[]): Promise<QueryResult> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await runner.query(this.postgres ? this.textForPostgres(sql) : sql, parameters, true);
    } finally {
      await runner.release();
    }
  }

  private sqlitePrepared(handle: SqliteHandle, sql: string): SqliteStatement {
    let statement = this.prepared.get(sql);
    if (statement === undefined) {
      if (this.prepared.size >= 100) this.prepared.clear();
      statement = handle.prepare(sql);
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  private textForPostgres(sql: string): string {
    let text = this.rewritten.get(sql);
    if (text === undefined) {
      // Bounded, should a caller ever build texts on the fly.
      if (this.rewritten.size >= 1000) this.rewritten.clear();
      text = forPostgres(sql);
      this.rewritten.set(sql, text);
    }
    return text;
  }
}

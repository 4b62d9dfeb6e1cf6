import { Injectable } from '@nestjs/common';
import { DataSource, QueryResult } from 'typeorm';
import { engineOf } from './engine';

export interface WriteResult {
  affected: number;
  /** The new row's id after an INSERT. */
  insertId: number;
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

  constructor(private readonly dataSource: DataSource) {
    this.postgres = engineOf(dataSource) === 'postgres';
  }

  async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return (await this.run(sql, parameters)).records as T[];
  }

  async write(sql: string, parameters: unknown[]): Promise<WriteResult> {
    const result = await this.run(sql, parameters);
    // PostgreSQL answers the RETURNING row, MySQL a result header, better-sqlite3 the last row id.
    const raw = result.raw as { insertId?: number } | number | bigint | undefined;
    const insertId = this.postgres ? (result.records[0] as { id?: number } | undefined)?.id : typeof raw === 'object' ? raw.insertId : raw;
    return { affected: result.affected ?? 0, insertId: Number(insertId ?? 0) };
  }

  private async run(sql: string, parameters: unknown[]): Promise<QueryResult> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await runner.query(this.postgres ? this.textForPostgres(sql) : sql, parameters, true);
    } finally {
      await runner.release();
    }
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

import { Injectable } from '@nestjs/common';
import { DataSource, QueryResult } from 'typeorm';

export interface WriteResult {
  affected: number;
  /** The new row's id after an INSERT. */
  insertId: number;
}

/**
 * Plain parameterised SQL for the hot paths (create, retrieve, audit): `?` placeholders and
 * unquoted snake_case identifiers give one text that SQLite and MySQL both run, and a constant
 * text lets better-sqlite3 reuse its prepared statement. The ORM's query building and
 * save-then-reload cost more than the queries themselves on these paths.
 */
@Injectable()
export class Sql {
  constructor(private readonly dataSource: DataSource) {}

  async rows<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return (await this.run(sql, parameters)).records as T[];
  }

  async write(sql: string, parameters: unknown[]): Promise<WriteResult> {
    const result = await this.run(sql, parameters);
    // MySQL answers a result header, better-sqlite3 the last row id.
    const raw = result.raw as { insertId?: number } | number | bigint | undefined;
    const insertId = typeof raw === 'object' ? raw.insertId : raw;
    return { affected: result.affected ?? 0, insertId: Number(insertId ?? 0) };
  }

  private async run(sql: string, parameters: unknown[]): Promise<QueryResult> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await runner.query(sql, parameters, true);
    } finally {
      await runner.release();
    }
  }
}

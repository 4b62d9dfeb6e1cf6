import type { DataSource } from 'typeorm';

/** The three database engines, as the code tells them apart (MariaDB counts as MySQL). */
export type Engine = 'sqlite' | 'mysql' | 'postgres';

/** The engine behind a data source (or a query runner's `connection`): dataSourceOptions makes only these three. */
export function engineOf(dataSource: Pick<DataSource, 'options'>): Engine {
  const { type } = dataSource.options;
  if (type === 'mysql' || type === 'mariadb') return 'mysql';
  return type === 'postgres' ? 'postgres' : 'sqlite';
}

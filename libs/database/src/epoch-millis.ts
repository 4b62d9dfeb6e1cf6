import { ValueTransformer } from 'typeorm';

/**
 * Timestamps are stored as epoch milliseconds in BIGINT columns: the same comparisons and
 * arithmetic on SQLite and MySQL, no time-zone conversions, millisecond precision.
 */
export const epochMillis: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

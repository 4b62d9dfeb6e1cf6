import { QueryFailedError } from 'typeorm';
import { isUnavailableError } from './errors';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const wrapped = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe('isUnavailableError', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED')],
    ['mysql2 timing a query out', wrapped(coded('PROTOCOL_SEQUENCE_TIMEOUT'))],
    ['PostgreSQL shutting down', wrapped(coded('57P01', 'terminating connection due to administrator command'))],
    ['a PostgreSQL statement timeout', wrapped(coded('57014', 'canceling statement due to statement timeout'))],
    ['a PostgreSQL connection failure', coded('08006')],
    ['node-postgres giving up on an answer', wrapped(new Error('Query read timeout'))],
    ['node-postgres losing its connection', wrapped(new Error('Connection terminated unexpectedly'))],
    ['node-postgres failing to connect in time', new Error('timeout exceeded when trying to connect')],
    ['SQLite failing to read', coded('SQLITE_IOERR_READ')],
  ])('is true for %s', (_what, error) => {
    expect(isUnavailableError(error)).toBe(true);
  });

  it.each([
    ['a PostgreSQL unique violation', wrapped(coded('23505', 'duplicate key value violates unique constraint'))],
    ['a PostgreSQL syntax error', wrapped(coded('42601'))],
    ['a MySQL duplicate entry', wrapped(coded('ER_DUP_ENTRY'))],
    ['a coded error that happens to say "Query read timeout"', coded('E_OTHER', 'Query read timeout')],
    ['a plain bug', new TypeError('x is undefined')],
    ['nothing', undefined],
  ])('is false for %s', (_what, error) => {
    expect(isUnavailableError(error)).toBe(false);
  });
});

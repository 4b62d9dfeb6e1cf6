import { readFileSync } from 'node:fs';
import { createConnection, SslOptions } from 'mysql2/promise';
import type { MysqlConnectionOptions } from 'typeorm/driver/mysql/MysqlConnectionOptions';
import { MysqlTarget, SettingsError } from '@app/config';

interface MysqlServer {
  host: string;
  port: number;
  user: string;
  password: string;
  connectTimeout: number;
}

const PLAINTEXT_REFUSED =
  'Invalid setting DATABASE_URL: the database server accepts only encrypted connections (require_secure_transport=ON); add ?ssl-mode=VERIFY_IDENTITY (or VERIFY_CA with ssl-ca, or REQUIRED).';

/**
 * mysql2's `ssl` option for the URL's ssl-mode. mysql2 has no PREFERRED (asked for TLS, it fails on
 * a server without it), so for PREFERRED, MySQL's default, one connection asks the server first
 * and the pool then uses TLS, without checking the certificate, or not at all.
 */
export async function mysqlSsl(target: MysqlTarget, connectTimeout: number): Promise<SslOptions | undefined> {
  switch (target.sslMode) {
    case 'disabled':
      return undefined;
    case 'preferred':
      return (await connectsOverTls({ ...target, connectTimeout })) ? { rejectUnauthorized: false } : undefined;
    case 'required':
      return { rejectUnauthorized: false };
    case 'verify_ca':
    case 'verify_identity':
      return {
        ca: target.sslCa === undefined ? undefined : readCa(target.sslCa),
        rejectUnauthorized: true,
        verifyIdentity: target.sslMode === 'verify_identity',
      };
  }
}

/**
 * The failure to open a MySQL pool in words, naming what to change when TLS is the cause (the
 * driver's own errors name neither DATABASE_URL nor ssl-mode); any other error as it was.
 */
export async function explainMysqlFailure(error: unknown, options: MysqlConnectionOptions): Promise<unknown> {
  const { code, message } = error as { code?: string; message?: string };
  const { host = '', port = 3306, username = '', password = '', connectTimeout = 10_000 } = options;
  switch (code ?? '') {
    case 'HANDSHAKE_SSL_ERROR':
      return new SettingsError(
        `Invalid setting DATABASE_URL: the database server's certificate was refused (${message}); give the CA that signed it with ssl-ca, and for VERIFY_IDENTITY the host name it is issued to.`,
      );
    case 'HANDSHAKE_NO_SSL_SUPPORT':
      return new SettingsError('Invalid setting DATABASE_URL: its ssl-mode needs TLS, which the database server does not offer.');
    case 'ER_SECURE_TRANSPORT_REQUIRED':
      return new SettingsError(PLAINTEXT_REFUSED);
    case 'ER_ACCESS_DENIED_ERROR':
      // MariaDB refuses a plain connection under require_secure_transport as a wrong password: the same credentials over TLS tell which.
      return options.ssl === undefined &&
        (await connectsOverTls({ host, port, user: username, password, connectTimeout }).catch(() => false))
        ? new SettingsError(PLAINTEXT_REFUSED)
        : error;
    default:
      return error;
  }
}

/**
 * One connection with TLS, not checking the certificate: true when it works, false when the server
 * offers no TLS. Any other failure (unreachable, access denied) is thrown: the pool would meet it too.
 */
async function connectsOverTls(server: MysqlServer): Promise<boolean> {
  try {
    const { host, port, user, password, connectTimeout } = server;
    await (await createConnection({ host, port, user, password, connectTimeout, ssl: { rejectUnauthorized: false } })).end();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'HANDSHAKE_NO_SSL_SUPPORT') return false;
    throw error;
  }
}

function readCa(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError(
      `Invalid setting DATABASE_URL: cannot read the ssl-ca file ${path} (${(error as { code?: string }).code ?? String(error)}).`,
    );
  }
}

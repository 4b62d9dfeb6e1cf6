import { parseDatabaseUrl } from './database-url';
import { custom, flag, group, integer } from './setting';

export const DATABASE = group({
  title: 'Database',
  intro:
    'DATABASE_URL is mysql://user:password@host:3306/database (MySQL/MariaDB; or mysql2://, mariadb://), ' +
    'postgres://user:password@host:5432/database (PostgreSQL; or postgresql://), or sqlite:<path>. ' +
    'Percent-encode @ : / # ? % in the user name and password (p@ss/w#rd is p%40ss%2Fw%23rd); an IPv6 host goes in brackets, mysql://user@[fd00::5]:3306/database. ' +
    'TLS, MySQL/MariaDB: ?ssl-mode=DISABLED, PREFERRED (the default: TLS when the server offers it), REQUIRED (TLS, certificate not checked), ' +
    'VERIFY_CA or VERIFY_IDENTITY (certificate checked against the CA, and the host name), with &ssl-ca=/path/ca.pem for a private CA. ' +
    'TLS, PostgreSQL: ?sslmode=require (or verify-full, ...) and &sslrootcert=/path/ca.pem. Any other URL parameter stops start-up, named.',
  settings: {
    url: custom({
      name: 'DATABASE_URL',
      default: 'sqlite:data/pwpush.sqlite3',
      secret: true,
      type: 'mysql://, postgres:// or sqlite: URL',
      meaning: 'The database: MySQL/MariaDB, PostgreSQL or an embedded SQLite file (see above for TLS and the URL rules).',
      parse: parseDatabaseUrl,
    }),
    migrateOnStart: flag({
      name: 'DB_MIGRATE_ON_START',
      default: true,
      meaning:
        "Apply pending migrations at start-up (under a named lock on MySQL, an advisory lock on PostgreSQL); turn off when a separate job migrates, e.g. the Helm chart's pre-upgrade hook.",
    }),
    connectTimeoutMs: integer({
      name: 'DB_CONNECT_TIMEOUT_MS',
      default: 5000,
      min: 100,
      max: 600_000,
      unit: 'ms',
      meaning:
        'MySQL and PostgreSQL: how long opening a connection may take before the request answers 503 (so an outage or partition never hangs requests).',
    }),
    queryTimeoutMs: integer({
      name: 'DB_QUERY_TIMEOUT_MS',
      default: 10_000,
      min: 100,
      max: 3_600_000,
      unit: 'ms',
      meaning: 'MySQL and PostgreSQL: how long one query may take before the request answers 503.',
    }),
  },
});

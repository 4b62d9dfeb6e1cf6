import { join } from 'node:path';
import { isHttpUrl, Reader, SettingsError } from './env-reader';
import { choice, flag, group, text } from './setting';

/** Where file attachments are kept: a directory (one replica), or an S3-compatible bucket (any number). */
export type FileStorage =
  | { type: 'local'; dir: string }
  | {
      type: 's3';
      bucket: string;
      region: string;
      /** For S3-compatible services (MinIO, Ceph, versitygw, ...); AWS when unset. */
      endpoint?: string;
      forcePathStyle: boolean;
      /** Both or neither; without them the SDK's default chain (IAM role, IRSA, env) is used. */
      credentials?: { accessKeyId: string; secretAccessKey: string };
      /** Prefix of every object key, so a bucket can be shared. */
      prefix: string;
    };

const NO_WHITESPACE = { valid: (v: string) => !/\s/.test(v), expectation: 'must not contain whitespace' };

/** The reference's names: PWP__FILES__STORAGE (`local` or `amazon`) and PWP__FILES__S3__*, read only for amazon. */
export const STORAGE = group({
  title: 'File storage',
  intro:
    "Where the encrypted files live. For S3, the bucket must exist; without the key pair the AWS SDK's default chain is used (IAM role, IRSA, AWS_* variables). " +
    'Path-style addressing suits MinIO, Ceph and most non-AWS services.',
  commentedOut: true,
  settings: {
    storage: choice({
      name: 'PWP__FILES__STORAGE',
      values: ['local', 'amazon', 's3'],
      default: 'local',
      meaning: 'local (DATA_DIR/files; one replica) or amazon, alias s3 (any S3-compatible object storage; any number of replicas).',
    }),
    bucket: text({
      name: 'PWP__FILES__S3__BUCKET',
      check: { valid: (v) => /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(v), expectation: 'must be an S3 bucket name' },
      unset: 'none; required for amazon',
      example: 'pwpush-files',
      meaning: 'The bucket.',
    }),
    region: text({ name: 'PWP__FILES__S3__REGION', default: 'us-east-1', meaning: "The bucket's region." }),
    endpoint: text({
      name: 'PWP__FILES__S3__ENDPOINT',
      check: { valid: isHttpUrl, expectation: 'must be an absolute http(s) URL' },
      unset: 'AWS',
      example: 'https://minio.example.com',
      meaning: 'The URL of an S3-compatible service (MinIO, Ceph, ...).',
    }),
    forcePathStyle: flag({
      name: 'PWP__FILES__S3__FORCE_PATH_STYLE',
      default: false,
      meaning: 'Path-style addressing (bucket in the path, not the host name).',
    }),
    accessKeyId: text({
      name: 'PWP__FILES__S3__ACCESS_KEY_ID',
      secret: true,
      check: NO_WHITESPACE,
      unset: "the AWS SDK's default chain",
      meaning: 'The access key id: set both keys or neither.',
    }),
    secretAccessKey: text({
      name: 'PWP__FILES__S3__SECRET_ACCESS_KEY',
      secret: true,
      check: NO_WHITESPACE,
      unset: "the AWS SDK's default chain",
      meaning: 'The secret access key: set both keys or neither.',
    }),
    prefix: text({
      name: 'PWP__FILES__S3__PREFIX',
      check: { valid: (v) => /^[\w./-]{0,200}$/.test(v), expectation: 'must be letters, digits, . / _ -' },
      unset: 'none',
      meaning: 'Starts every object key, so one bucket can serve several instances.',
    }),
  },
});

export function readFileStorage(read: Reader, dataDir: string): FileStorage {
  const s = STORAGE.settings;
  if (read(s.storage) === 'local') return { type: 'local', dir: join(dataDir, 'files') };
  const bucket = read(s.bucket);
  if (bucket === undefined) throw new SettingsError('Invalid setting PWP__FILES__S3__BUCKET: required when PWP__FILES__STORAGE is amazon.');
  const accessKeyId = read(s.accessKeyId);
  const secretAccessKey = read(s.secretAccessKey);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new SettingsError(
      'Invalid setting PWP__FILES__S3__SECRET_ACCESS_KEY: set both PWP__FILES__S3__ACCESS_KEY_ID and PWP__FILES__S3__SECRET_ACCESS_KEY, or neither.',
    );
  }
  return {
    type: 's3',
    bucket,
    region: read(s.region),
    endpoint: read(s.endpoint),
    forcePathStyle: read(s.forcePathStyle),
    credentials: accessKeyId === undefined || secretAccessKey === undefined ? undefined : { accessKeyId, secretAccessKey },
    prefix: read(s.prefix) ?? '',
  };
}

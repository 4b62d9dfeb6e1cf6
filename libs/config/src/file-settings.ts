import { Reader } from './env-reader';
import { group, integer, size } from './setting';
import { FileStorage, readFileStorage } from './storage-settings';

export interface FileSettings {
  /** Most files per push. */
  maxUploads: number;
  /** Largest file, and most bytes of files in one push. */
  maxFileBytes: number;
  maxPushBytes: number;
  /** Largest JSON request body: base64 files must fit in it (4/3 of their size), and it is read into memory. */
  maxJsonBodyBytes: number;
  /** How long a download link from a retrieval works; also the grace the last view's links get. */
  linkLifetimeSeconds: number;
  storage: FileStorage;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

export const FILES = group({
  title: 'Files',
  intro:
    'Sizes are bytes, or a number with KiB, MiB or GiB. Over a size limit an upload is refused (413) the moment it goes over, and nothing of it is kept.',
  settings: {
    maxUploads: integer({
      name: 'PWP__FILES__MAX_FILE_UPLOADS',
      default: 10,
      min: 1,
      max: 100,
      meaning: 'Most files per file push; more is a 422.',
    }),
    maxFileSize: size({ name: 'PWP__FILES__MAX_FILE_SIZE', default: 100 * MIB, min: 1, max: 64 * GIB, meaning: 'The largest file.' }),
    maxPushSize: size({
      name: 'PWP__FILES__MAX_PUSH_SIZE',
      default: 500 * MIB,
      min: 1,
      max: 256 * GIB,
      meaning: 'All files of one push together; at least PWP__FILES__MAX_FILE_SIZE (and raised to it by default).',
    }),
    maxJsonBodySize: size({
      name: 'PWP__FILES__MAX_JSON_BODY_SIZE',
      default: 32 * MIB,
      min: 16 * MIB,
      max: GIB,
      meaning:
        'The largest JSON body of an authenticated create, which may carry base64 files (4/3 of their size); granted once the token is checked (other bodies: 13 MiB). JSON is read into memory: keep large files to multipart uploads, which stream.',
    }),
    linkLifetimeSeconds: integer({
      name: 'PWP__FILES__LINK_LIFETIME_SECONDS',
      default: 300,
      min: 10,
      max: 86_400,
      unit: 'seconds',
      meaning:
        'How long a download link from a retrieval works. The view that uses up a push keeps its files this long for those links; then the sweep destroys them.',
    }),
  },
});

export function readFiles(read: Reader, dataDir: string): FileSettings {
  const { maxUploads, maxFileSize, maxPushSize, maxJsonBodySize, linkLifetimeSeconds } = FILES.settings;
  const maxFileBytes = read(maxFileSize);
  return {
    maxUploads: read(maxUploads),
    maxFileBytes,
    maxPushBytes: read(maxPushSize.within({ min: maxFileBytes, default: Math.max(maxPushSize.default, maxFileBytes) })),
    maxJsonBodyBytes: read(maxJsonBodySize),
    linkLifetimeSeconds: read(linkLifetimeSeconds),
    storage: readFileStorage(read, dataDir),
  };
}

import { Reader } from './env-reader';
import { group, text } from './setting';

export const REDIS = group({
  title: 'Redis',
  intro:
    'Shares the rate-limit and passphrase-attempt counters between replicas. Unreachable Redis: the counters fall back to process memory, ' +
    '/readyz stays ready and reports it (degraded), requests keep being served.',
  settings: {
    url: text({
      name: 'REDIS_URL',
      secret: true,
      check: { valid: isRedisUrl, expectation: 'must be redis://[:password@]host[:port][/db] or rediss://...' },
      unset: 'counters kept in each process',
      meaning: 'redis://[:password@]host:6379[/db] (or rediss:// for TLS).',
    }),
    keyPrefix: text({
      name: 'REDIS_KEY_PREFIX',
      default: 'pwpush:',
      check: { valid: (v) => /^[\w:.{}-]{1,64}$/.test(v), expectation: 'must be 1-64 letters, digits or _ : . - { }' },
      meaning: 'Starts every Redis key, so several deployments can share one Redis.',
    }),
  },
});

export function readRedis(read: Reader): { url: string; keyPrefix: string } | undefined {
  const { url, keyPrefix } = read.all(REDIS);
  return url === undefined ? undefined : { url, keyPrefix };
}

function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
}

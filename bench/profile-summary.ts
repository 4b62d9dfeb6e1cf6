import { readFileSync } from 'node:fs';

/**
 * Reads a V8 .cpuprofile (from npm run bench -- --cpu-prof) and prints where the time went:
 * self time by package, self time by function, and inclusive time by function (each sample
 * counted once per function on its stack, so recursion does not inflate it).
 *
 *   node bench/.build/bench/profile-summary.js <file.cpuprofile> [--top 30] [--match <substring>]
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which package (or part of the app, or V8 itself) a frame belongs to. */
function bucketOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const app = /dist\/(apps|libs)\/([^/]+)/.exec(url);
  if (app) return `app:${app[2]}`;
  return url.replace(/^.*\//, '');
}

const shortUrl = (url: string) => url.replace(/^.*node_modules\//, '').replace(/^.*\/dist\//, 'dist/').replace(/^file:\/\//, '');

function main(): void {
  const args = process.argv.slice(2);
  const file = args.find((arg) => !arg.startsWith('--') && args[args.indexOf(arg) - 1] !== '--top' && args[args.indexOf(arg) - 1] !== '--match');
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [--top N] [--match substring]');
  const top = Number(args[args.indexOf('--top') + 1]) || 30;
  const match = args.includes('--match') ? args[args.indexOf('--match') + 1] : undefined;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

  const self = new Map<string, number>();
  const buckets = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') {
      idle += dt;
      return;
    }
    total += dt;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + dt);
    const bucket = bucketOf(node.callFrame.url, node.callFrame.functionName);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const k = keyOf(byId.get(cursor)!);
      if (!seen.has(k)) {
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
      }
    }
  });

  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  const print = (title: string, map: Map<string, number>, filter: (key: string) => boolean = () => true) => {
    process.stdout.write(`\n${title}\n`);
    [...map]
      .filter(([key]) => filter(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([key, t]) => process.stdout.write(`${pct(t)}  ${key}\n`));
  };
  process.stdout.write(`busy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s\n`);
  print('self time by package', buckets);
  print('self time by function', self);
  print('inclusive time by function', inclusive, (key) => (match ? key.includes(match) : !key.startsWith('(')));
}

// Piping into head closes stdout early; that is not an error worth a stack trace.
process.stdout.on('error', () => process.exit(0));
main();

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { ENV_EXAMPLE_PATH, REFERENCE_PATH, REGENERATE, renderEnvExample, renderReference } from './config-reference';
import { ALL_SETTINGS, SETTING_GROUPS } from './groups';
import { choice, flag, group, integer, text } from './setting';
import { SECRET_SETTINGS } from './secret-files';
import { loadSettings } from './settings';

const ROOT = join(__dirname, '..', '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The first line that differs, so the failure says where without printing two whole files. */
function staleness(path: string, generated: string): string | undefined {
  const committed = read(path);
  if (committed === generated) return undefined;
  const want = generated.split('\n');
  const got = committed.split('\n');
  const at = want.findIndex((line, i) => line !== got[i]);
  const line = at === -1 ? want.length : at;
  return `${path} is not what the settings tables generate (line ${line + 1}: committed ${JSON.stringify(got[line])}, generated ${JSON.stringify(want[line])}); run \`${REGENERATE}\` and commit the result.`;
}

describe('the settings tables', () => {
  it.each([
    [ENV_EXAMPLE_PATH, renderEnvExample],
    [REFERENCE_PATH, renderReference],
  ])('generate the committed %s', (path, render) => {
    expect(staleness(path, render(SETTING_GROUPS))).toBeUndefined();
  });

  it('make a .env.example that, copied to .env, changes nothing', () => {
    expect(loadSettings(parseEnv(read(ENV_EXAMPLE_PATH)))).toEqual(loadSettings({}));
  });

  it('name each variable once, in full, in the source of libs/config', () => {
    const sources = readdirSync(__dirname)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'))
      .map((file) => readFileSync(join(__dirname, file), 'utf8'))
      .join('\n');
    const declarations = (name: string) => sources.split(`'${name}'`).length - 1;
    expect(ALL_SETTINGS.map((setting) => setting.name).filter((name) => declarations(name) !== 1)).toEqual([]);
  });

  it('give every setting a meaning, and a default or what unset means', () => {
    const incomplete = ALL_SETTINGS.filter((s) => s.meaning.trim() === '' || (s.defaultText === '' && !s.unset)).map((s) => s.name);
    expect(incomplete).toEqual([]);
  });
});

describe('the generated files', () => {
  const SAMPLE = group({
    title: 'Sample',
    intro: 'Read with SAMPLE_PORT; see docs/operations.md.',
    settings: {
      port: integer({ name: 'SAMPLE_PORT', default: 80, min: 1, max: 65535, meaning: 'A port | a pipe.' }),
      level: choice({ name: 'SAMPLE_LEVEL', values: ['low', 'high'], default: 'low', meaning: 'How loud.' }),
      token: text({ name: 'SAMPLE_TOKEN', secret: true, unset: 'no token', meaning: 'Sent as "Bearer <SAMPLE_TOKEN>".' }),
    },
  });
  const DORMANT = group({
    title: 'Dormant',
    commentedOut: true,
    settings: {
      on: flag({ name: 'DORMANT_ON', default: false, meaning: 'Turns it on.' }),
      url: text({ name: 'DORMANT_URL', unset: 'none', example: 'https://example.com', meaning: 'Where.' }),
    },
  });

  it('write each setting with its default, limits and unset meaning, secrets named in the header, feature groups commented out', () => {
    const sut = renderEnvExample([SAMPLE, DORMANT]);

    expect(sut).toContain('Secret settings (SAMPLE_TOKEN) may instead name a file');
    expect(sut).toContain('# --- Sample ---');
    expect(sut).toContain('# Read with SAMPLE_PORT; see docs/operations.md.\n\n# A port | a pipe. Integer, 1 to 65535.\nSAMPLE_PORT=80\n');
    expect(sut).toContain('# How loud. One of low, high.\nSAMPLE_LEVEL=low\n');
    expect(sut).toContain('# Sent as "Bearer <SAMPLE_TOKEN>". Unset: no token.\nSAMPLE_TOKEN=\n');
    expect(sut).toContain('# Turns it on.\n# DORMANT_ON=false\n# Where. Unset: none.\n# DORMANT_URL=https://example.com\n');
  });

  it('write the reference as Markdown tables: names and identifiers as code, pipes and tags escaped, docs pages linked', () => {
    const sut = renderReference([SAMPLE, DORMANT]);

    expect(sut).toContain('[Sample](#sample) · [Dormant](#dormant)');
    expect(sut).toContain('Read with `SAMPLE_PORT`; see [operations.md](operations.md).');
    expect(sut).toContain('| `SAMPLE_PORT` | `80` | integer, 1 to 65535 |  | A port \\| a pipe. |');
    expect(sut).toContain('| `SAMPLE_TOKEN` | no token | text | yes | Sent as "Bearer `<SAMPLE_TOKEN>`". |');
  });
});

describe('the Helm chart', () => {
  const helpers = read('helm/pwpush/templates/_helpers.tpl');
  const secrets = [...SECRET_SETTINGS].sort();

  it('lists as secret exactly the settings the tables mark secret, in each of its three lists', () => {
    const secretData = [...helpers.matchAll(/^([A-Z][A-Z0-9_]+): \{\{/gm)].map((m) => m[1]);
    const refused = /\$secretKeys := list((?: "[A-Z0-9_]+")+)/.exec(helpers)?.[1].match(/[A-Z0-9_]+/g) ?? [];
    const fields = /\$fields := dict((?: "\w+")+)/.exec(helpers)?.[1].match(/"\w+"/g) ?? [];
    const mounted = [
      ...fields.filter((_, i) => i % 2 === 0).map((quoted) => quoted.slice(1, -1)),
      ...[...helpers.matchAll(/set \$fields "([A-Z0-9_]+)"/g)].map((m) => m[1]),
    ];
    expect({ secretData: secretData.sort(), refused: refused.sort(), mounted: mounted.sort() }).toEqual({ secretData: secrets, refused: secrets, mounted: secrets });
  });

  it('sets only variables the tables know', () => {
    const templates = ['_helpers.tpl', 'deployment.yaml', 'configmap.yaml', 'migrations-job.yaml', 'NOTES.txt'].map((file) => read(`helm/pwpush/templates/${file}`)).join('\n');
    const known = new Set(ALL_SETTINGS.map((setting) => setting.name));
    const mentioned = new Set(templates.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b|\bPORT\b/g));
    expect([...mentioned].filter((name) => !known.has(name))).toEqual([]);
  });
});

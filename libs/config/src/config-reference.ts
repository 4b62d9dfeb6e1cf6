import { Setting, SettingGroup } from './setting';

/**
 * The two files written from the settings tables: `.env.example` (every setting with its default,
 * ready to copy to `.env`) and `docs/configuration.md` (the reference, one table per group).
 * Deterministic, so a test can tell when the committed files are stale.
 */

export const ENV_EXAMPLE_PATH = '.env.example';
export const REFERENCE_PATH = 'docs/configuration.md';
export const REGENERATE = 'npm run config:docs';

const WIDTH = 100;
const SOURCE = 'libs/config/src/*-settings.ts';

export function renderEnvExample(groups: readonly SettingGroup[]): string {
  const secrets = secretNames(groups);
  const header = comment(
    `Every setting the service reads, with its default. Copy to .env (read at start-up from the working directory by the server and the CLI; ` +
      `the environment wins over it) or set in the environment. A blank value is the same as unset. ` +
      `Invalid values stop the service at start-up with a message naming the variable. ` +
      `Secret settings (${secrets.join(', ')}) may instead name a file holding the value, with _FILE: ` +
      `PWPUSH_MASTER_KEY_FILE=/run/secrets/pwpush/PWPUSH_MASTER_KEY. ` +
      `Written by \`${REGENERATE}\` from the tables in ${SOURCE}: change those, not this file; ${REFERENCE_PATH} describes the same settings.`,
  );
  const sections = groups.map((group) => {
    const lines = [`# --- ${group.title} `.padEnd(WIDTH - 20, '-')];
    if (group.intro) lines.push(...comment(group.intro), '');
    for (const setting of Object.values(group.settings)) {
      lines.push(...comment(envComment(setting)));
      const value = setting.example ?? setting.defaultText;
      lines.push(`${group.commentedOut || setting.example !== undefined ? '# ' : ''}${setting.name}=${value}`);
    }
    return lines.join('\n');
  });
  return `${[header.join('\n'), ...sections].join('\n\n')}\n`;
}

/** The meaning, then the limits where the value has them, then what unset means. */
function envComment(setting: Setting<unknown>): string {
  const limits = ['integer', 'size', 'choice'].includes(setting.kind) ? ` ${capitalized(setting.type)}.` : '';
  const unset = setting.unset === undefined ? '' : ` Unset: ${setting.unset}.`;
  return `${setting.meaning}${limits}${unset}`;
}

export function renderReference(groups: readonly SettingGroup[]): string {
  const names = groups.flatMap((group) => Object.values(group.settings).map((setting) => setting.name));
  const md = markdown(names);
  const lines = [
    '# Configuration reference',
    '',
    `<!-- Written by \`${REGENERATE}\` from the tables in ${SOURCE}; change those, not this file. -->`,
    '',
    'Every setting the service reads, by group: its variable, its default, the values it takes, whether it is a secret, and what it does. ' +
      'Settings come from the environment or a `.env` file in the working directory (the environment wins); a blank value is the same as unset, ' +
      'and an invalid one stops the start with a message naming the variable. ' +
      'A secret setting may instead be given as `<NAME>_FILE`, the path of a file holding the value. ' +
      `[\`.env.example\`](../.env.example) lists the same settings with their defaults.`,
    '',
    groups.map((group) => `[${group.title}](#${slug(group.title)})`).join(' · '),
  ];
  for (const group of groups) {
    lines.push('', `## ${group.title}`, '');
    if (group.intro) lines.push(md(group.intro), '');
    lines.push('| Variable | Default | Type | Secret | Meaning |', '|---|---|---|---|---|');
    for (const setting of Object.values(group.settings)) {
      const fallback = setting.defaultText === '' ? (setting.unset ?? '') : `\`${cell(setting.defaultText)}\``;
      const secret = setting.secret ? 'yes' : '';
      lines.push(
        `| \`${setting.name}\` | ${setting.defaultText === '' ? md(fallback) : fallback} | ${md(setting.type)} | ${secret} | ${md(setting.meaning)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function secretNames(groups: readonly SettingGroup[]): string[] {
  return groups.flatMap((group) =>
    Object.values(group.settings)
      .filter((setting) => setting.secret)
      .map((setting) => setting.name),
  );
}

/** `#`-prefixed lines of at most WIDTH characters (a longer word stays whole). */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > WIDTH && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const slug = (title: string): string =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/**
 * Plain text as Markdown: variable names, identifiers with underscores, URLs and paths become code
 * (so `__Host-` or `notify_emails_to` are not read as emphasis), docs/ pages become links, and
 * what would be HTML is escaped.
 */
function markdown(names: readonly string[]): (text: string) => string {
  const known = new Set(names);
  const technical = (word: string): boolean =>
    known.has(word) ||
    word.includes('_') ||
    word.includes('://') ||
    word === '*' ||
    /^<[^>]+>$/.test(word) ||
    /^[/{][\w{}/.:-]+$/.test(word);
  return (text) =>
    text
      .split(/(\s+)/)
      .map((token) => {
        const [, before, core, after] = /^([("]*)(.*?)([.,;:)"]*)$/.exec(token) ?? ['', '', token, ''];
        const page = /^docs\/([\w-]+\.md)$/.exec(core)?.[1];
        if (page) return `${before}[${page}](${page})${after}`;
        if (core !== '' && technical(core)) return `${before}\`${cell(core)}\`${after}`;
        return cell(token).replace(/</g, '&lt;').replace(/>/g, '&gt;');
      })
      .join('');
}

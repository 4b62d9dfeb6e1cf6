import Negotiator from 'negotiator';

/** What a request says about its language, strongest first. */
export interface LanguageHints {
  /** `?locale=` of the page's address. */
  query?: unknown;
  /** The signed-in person's preferred language. */
  preferred?: string | null;
  /** The browser's Accept-Language header. */
  acceptLanguage?: string;
}

export interface LanguageChoice {
  locale: string;
  /** Chosen by `?locale=`: the page's links and forms then carry it on. */
  fromQuery: boolean;
}

/**
 * Tags that name a listed language under another name: Norwegian Bokmål and Nynorsk, Simplified
 * Chinese. Bare `zh` finds zh-CN as any bare language finds its regional form; `zh-TW` and
 * `zh-Hant` (Traditional) find nothing.
 */
const ALIASES: Record<string, string> = { nb: 'no', nn: 'no', 'zh-hans': 'zh-CN', 'zh-sg': 'zh-CN' };

/**
 * The language of a page: `?locale=` when it names an available language, else the person's
 * preferred one, else the browser's best by Accept-Language, else the default. The reference reads
 * only the header's first tag; every tag is read here, by weight.
 */
export function chooseLanguage(hints: LanguageHints, available: readonly string[], fallback: string): LanguageChoice {
  const fromQuery = typeof hints.query === 'string' ? exactly(hints.query, available) : undefined;
  if (fromQuery) return { locale: fromQuery, fromQuery: true };
  const preferred = hints.preferred ? exactly(hints.preferred, available) : undefined;
  return { locale: preferred ?? acceptedLanguage(hints.acceptLanguage, available) ?? fallback, fromQuery: false };
}

/** The available language `code` names, in any letter case. */
export function exactly(code: string, available: readonly string[]): string | undefined {
  const wanted = code.trim().toLowerCase();
  return available.find((each) => each.toLowerCase() === wanted);
}

/**
 * The available language the header wants most: tags by weight (q=0 refused; equal weights in
 * their order), each matched exactly, then by a known alias, then without its last subtags
 * (`fr-CA` → `fr`, `zh-Hans-CN` → `zh-CN`); a bare language takes its first regional form (`pt` → `pt-BR`).
 */
export function acceptedLanguage(header: string | undefined, available: readonly string[]): string | undefined {
  if (!header) return undefined;
  const tags = new Negotiator({ headers: { 'accept-language': header } }).languages();
  for (const tag of tags) {
    const match = matchTag(tag, available);
    if (match) return match;
  }
  return undefined;
}

function matchTag(tag: string, available: readonly string[]): string | undefined {
  if (tag === '*') return undefined;
  const subtags = tag.toLowerCase().split(/[-_]/);
  for (let length = subtags.length; length > 0; length--) {
    const candidate = subtags.slice(0, length).join('-');
    const match = exactly(candidate, available) ?? (ALIASES[candidate] && exactly(ALIASES[candidate], available));
    if (match) return match;
  }
  if (subtags.length === 1) return available.find((each) => each.toLowerCase().startsWith(`${subtags[0]}-`));
  return undefined;
}

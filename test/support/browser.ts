import axe from 'axe-core';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { E2E_ENGINE } from './test-database';

/** Debian's chromium (scripts/install-chromium.sh installs it); never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';
/** Git-ignored: every page the tests visit, as a person would see it. */
export const SCREENSHOTS = join(__dirname, '..', '..', '.cache', 'screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash scripts/install-chromium.sh (npm test does).`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * The pages a test opens, each in a context of its own (1280×800 unless told otherwise), with their
 * console errors and uncaught errors collected. closeAll, in an afterEach, closes every context
 * (one a test closed already too) and returns the errors but a refused load whose status
 * `allowedStatus` matches (any 4xx by default): a test expects them to be none.
 */
export class WatchedPages {
  private contexts: BrowserContext[] = [];
  private errors: string[] = [];

  constructor(
    private readonly browser: Browser,
    private readonly allowedStatus = /^4\d\d$/,
  ) {}

  async open(options: BrowserContextOptions = {}): Promise<Page> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
    this.contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => void (message.type() === 'error' && this.errors.push(message.text())));
    page.on('pageerror', (error) => void this.errors.push(error.message));
    return page;
  }

  async closeAll(): Promise<string[]> {
    await Promise.all(this.contexts.map((context) => context.close()));
    const errors = this.errors.filter((error) => !this.allowedStatus.test(/^Failed to load resource: the server responded with a status of (\d+)/.exec(error)?.[1] ?? ''));
    this.contexts = [];
    this.errors = [];
    return errors;
  }
}

/** What the functions passed to page.evaluate use of the browser's globals (the project compiles without the DOM library). */
interface PageGlobals {
  axe: typeof axe;
  document: { documentElement: { scrollWidth: number; clientWidth: number } };
}

export interface Violation {
  id: string;
  impact: string;
  nodes: string[];
}

/**
 * axe-core's serious and critical violations on the page as it is now. Evaluated through the
 * DevTools protocol, so the page's CSP (which would refuse an injected script) stays on.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axe.source);
  const results = await page.evaluate(() => (globalThis as unknown as PageGlobals).axe.run({ resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact!, nodes: violation.nodes.map((node) => node.html) }));
}

/**
 * Saves a screenshot, then checks the page: one h1, accessible (axe), usable at 320 px and at 200 %
 * zoom. How a page looks does not depend on the database engine, so this is done on SQLite, the
 * engine of npm test; on MySQL and PostgreSQL the same browser tests check what the pages do.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  if (E2E_ENGINE !== 'sqlite') return;
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  expect(await page.locator('h1').count()).toBe(1);
  expect([name, await seriousViolations(page)]).toEqual([name, []]);
  const viewport = page.viewportSize()!;
  // 320 CSS px wide (a small phone), and 1280 px at 200 % zoom, which is 640 CSS px.
  for (const width of [320, 640]) {
    await page.setViewportSize({ width, height: 800 });
    const overflow = await page.evaluate(() => {
      const { documentElement } = (globalThis as unknown as PageGlobals).document;
      return documentElement.scrollWidth - documentElement.clientWidth;
    });
    expect([name, width, overflow]).toEqual([name, width, 0]);
  }
  await page.setViewportSize(viewport);
}

import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's Chromium (ops/installSystemPackages.sh installs it: `npm test` as root, .ci/run); playwright-core drives it, downloading no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A headless Chromium on a fresh profile (playwright gives each launch its own --user-data-dir). */
export const launchBrowser = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run ops/installSystemPackages.sh as root`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 60_000 });
};

/** Pages whose context a test has not closed yet: after a failure, the one it was looking at. */
const open = new Set<Page>();

/**
 * Saves a screenshot of every page still open (a test that failed left its page open) as
 * `failed-<label>-<n>.png`: register it with `test.after.each`.
 */
export const screenshotLeftOpen = async (label: string): Promise<void> => {
  const { screenshot } = await import('./screenshots.ts');
  let n = 0;
  for (const page of open) {
    n += 1;
    await screenshot(page, `failed-${label}-${n}`).catch(() => undefined);
    // CI keeps only the output: say what the page showed when the test gave up.
    const text = await page
      .locator('body')
      .textContent({ timeout: 2_000 })
      .catch(() => '(unreadable)');
    console.error(`[${label}] page left open at ${page.url()} showed:\n${(text ?? '').replace(/\s+/g, ' ').slice(0, 2_000)}`);
    await page
      .context()
      .close()
      .catch(() => undefined);
  }
};

export type BrowserPage = {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Script errors, failed CSP checks and console errors seen so far (a clean page has none). */
  readonly problems: string[];
};

/** A new browser context (its own cookies) with one page, recording what went wrong in it. */
export const openPage = async (browser: Browser, options: { viewport?: { width: number; height: number } } = {}): Promise<BrowserPage> => {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1360, height: 860 }, deviceScaleFactor: 1 });
  // Generous: a shared 2-core machine running other suites can be slow to hash a password or build a page.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  open.add(page);
  context.on('close', () => open.delete(page));
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { context, page, problems };
};

/**
 * Counts the JavaScript a page downloads, as sent on the wire (the server gzips it): the
 * first-load budget is checked against this.
 */
export const trackScripts = (page: Page): (() => Promise<{ files: number; wireBytes: number }>) => {
  const pending: Promise<number>[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() !== 'script') return;
    pending.push(
      response
        .request()
        .sizes()
        .then((sizes) => sizes.responseBodySize)
        .catch(() => 0),
    );
  });
  return async () => {
    const sizes = await Promise.all(pending);
    return { files: sizes.length, wireBytes: sizes.reduce((sum, n) => sum + n, 0) };
  };
};

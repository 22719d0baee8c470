import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

/** test-output/screenshots/ at the repository root (gitignored): look at them after a run. */
export const SCREENSHOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test-output/screenshots');

/** Saves the full page as `<name>.png` once the page has settled; returns the file path. */
export const screenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.waitForLoadState('networkidle').catch(() => undefined);
  // Passing confirmations ("User created") would cover the page: they are left out of the picture.
  await page.screenshot({ path, fullPage: true, animations: 'disabled', style: '.toaster { display: none !important; }' });
  return path;
};

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';

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

// The function passed to page.evaluate runs in the browser; the project's types have no DOM.
declare const document: any;
declare const Image: any;

/**
 * The size of what is drawn in the element's picture (pixels clearly darker or lighter than its
 * corner, the background): a glyph the font lacks, or a shape that did not draw, comes out tiny.
 */
export const inkBox = async (page: Page, locator: Locator): Promise<{ width: number; height: number }> => {
  const png = (await locator.screenshot({ animations: 'disabled', scale: 'css' })).toString('base64');
  return page.evaluate(async (data) => {
    const image = new Image();
    image.src = `data:image/png;base64,${data}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data: rgba } = context.getImageData(0, 0, image.width, image.height);
    const lightness = (i: number): number => (rgba[i] + rgba[i + 1] + rgba[i + 2]) / 3;
    const background = lightness(0);
    let [left, top, right, bottom] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, -1, -1];
    for (let y = 0; y < image.height; y += 1) {
      for (let x = 0; x < image.width; x += 1) {
        if (Math.abs(lightness((y * image.width + x) * 4) - background) <= 60) continue;
        [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
      }
    }
    return right < 0 ? { width: 0, height: 0 } : { width: right - left + 1, height: bottom - top + 1 };
  }, png);
};

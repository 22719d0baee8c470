/**
 * Which URLs from span content the page may use (kept apart from the markdown renderer so that
 * list pages can check an image URL without loading marked and DOMPurify).
 * - links: http(s) and mailto only, never `javascript:`, `data:` or `vbscript:`;
 * - images: https:, or data: URLs of raster formats (no SVG, which can carry script).
 */
const SAFE_LINK = /^(https?:|mailto:)/i;
const SAFE_IMAGE = /^(https:\/\/|data:image\/(png|jpe?g|gif|webp|avif|bmp);)/i;

export const isSafeLinkUrl = (url: string): boolean => SAFE_LINK.test(url.trim());

export const isSafeImageUrl = (url: string): boolean => SAFE_IMAGE.test(url.trim());

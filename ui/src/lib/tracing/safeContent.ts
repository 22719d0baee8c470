import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { isSafeImageUrl, isSafeLinkUrl } from './safeUrls.ts';

/**
 * Span content is written by whoever sends traces: it is attacker-controlled. Markdown is turned
 * into HTML by marked (raw HTML in it stays text) and then sanitised by DOMPurify before it
 * reaches {@html}; nothing else from a span is ever inserted as HTML. On top of DOMPurify's defaults:
 * - links keep only http(s)/mailto targets (a `javascript:` or `data:` link becomes plain text
 *   with no href) and open in a new tab without an opener;
 * - images load only from https: or data:image/ URLs (no tracking over http, no svg scripts);
 * - no forms, styles, frames or inline event handlers survive.
 */
let hooked = false;
const purifier = () => {
  if (hooked) return DOMPurify;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!isSafeLinkUrl(href)) node.removeAttribute('href');
      else {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    }
    if (node.tagName === 'IMG') {
      const src = node.getAttribute('src') ?? '';
      if (!isSafeImageUrl(src)) node.removeAttribute('src');
      node.removeAttribute('srcset');
      node.setAttribute('loading', 'lazy');
      node.setAttribute('referrerpolicy', 'no-referrer');
    }
  });
  return DOMPurify;
};

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// Raw HTML inside the markdown is shown as text, not parsed: even parsing it (in DOMPurify's inert
// document) makes the browser evaluate its inline handlers against the CSP. What marked itself
// emits is then sanitised anyway, for its links and images.
const marked = new Marked({ gfm: true, breaks: false, async: false, renderer: { html: ({ text }) => escapeHtml(text) } });

/** Sanitised HTML for a markdown (or HTML-bearing) text; safe for {@html}. */
export const renderMarkdown = (source: string): string => {
  const html = marked.parse(source, { async: false }) as string;
  return sanitizeHtml(html);
};

export const sanitizeHtml = (html: string): string =>
  purifier().sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
    ALLOW_DATA_ATTR: false,
  });

/**
 * Span content shown by the UI is attacker-controlled. Even if some of it slipped into the DOM as
 * markup, the browser runs only the app's own script files: no inline script, no eval, no plugins,
 * no framing, no form posting elsewhere. Styles may be inline (components set style attributes);
 * images may come from anywhere over https or data: URLs (LLM inputs carry them) but cannot run code.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

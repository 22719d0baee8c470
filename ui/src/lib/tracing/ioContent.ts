import { isSafeImageUrl } from './safeUrls.ts';

/** How an input or output value is shown, decided by its MIME type and, for text, its shape. */
export type IOContent =
  | { readonly kind: 'json'; readonly value: unknown; readonly text: string }
  | { readonly kind: 'markdown'; readonly text: string }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'image'; readonly url: string; readonly text: string };

const parseJson = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

/** Headings, lists, emphasis, fences, links or tables: text that reads better rendered. */
const MARKDOWN_HINT = /(^|\n)(#{1,6} |[-*+] |\d+\. |> |```|\|.*\|)|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)/;

export const looksLikeMarkdown = (text: string): boolean => MARKDOWN_HINT.test(text);

export const ioContentOf = (value: string, mimeType: string): IOContent => {
  const mime = mimeType.toLowerCase().split(';')[0]!.trim();
  const trimmed = value.trim();
  if (mime.startsWith('image/') || /^data:image\//i.test(trimmed)) {
    // An image MIME type with a bare value: base64 bytes (anything else is shown as text).
    const base64 = /^[A-Za-z0-9+/=\s]+$/.test(trimmed);
    const url =
      trimmed.startsWith('data:') || trimmed.startsWith('https:')
        ? trimmed
        : base64
          ? `data:${mime};base64,${trimmed.replace(/\s/g, '')}`
          : '';
    if (isSafeImageUrl(url)) return { kind: 'image', url, text: value };
  }
  if (mime === 'application/json' || mime.endsWith('+json') || /^[[{]/.test(trimmed)) {
    const parsed = parseJson(trimmed);
    if (parsed.ok && typeof parsed.value === 'object' && parsed.value !== null) return { kind: 'json', value: parsed.value, text: value };
    // A JSON string value: show the string itself.
    if (parsed.ok && typeof parsed.value === 'string') return ioContentOf(parsed.value, 'text/plain');
  }
  if (mime === 'text/markdown' || mime === 'text/x-markdown') return { kind: 'markdown', text: value };
  return { kind: 'text', text: value };
};

/** `{"question": "How do I …` (a cut JSON object whose first field is a text people write, like
 * a question or an answer): that text. Other objects stay JSON, keys and all. */
const LEADING_JSON_TEXT =
  /^\{\s*"(question|query|input|prompt|message|text|content|answer|output|response|result)"\s*:\s*"((?:[^"\\]|\\.)*)/i;

const unescapeJson = (text: string): string =>
  text.replace(/\\(["\\/bfnrt])/g, (_, c: string) => ({ b: '', f: '', n: ' ', r: ' ', t: ' ' })[c] ?? c);

/**
 * One line for a table cell: whitespace collapsed; for a JSON object that starts with a text
 * field (`{"question": "…"}`, what most chains take), the text itself.
 */
export const previewText = (preview: { truncatedValue: string; mimeType?: string; preview?: string | null } | null | undefined): string => {
  if (!preview) return '';
  // An LLM span's messages: the last user message, the answer or its tool calls (the server's pick).
  if (preview.preview) return preview.preview.replace(/\s+/g, ' ').trim();
  const text = preview.truncatedValue.trim();
  const leading = LEADING_JSON_TEXT.exec(text);
  const plain = leading ? unescapeJson(leading[2]!) : preview.mimeType === 'text/markdown' ? markdownAsText(text) : text;
  return plain.replace(/\s+/g, ' ').trim();
};

/**
 * Markdown read as the words it renders, for a one-line preview: "**Sure.** See [the docs](…)"
 * reads "Sure. See the docs" instead of its markup. Rough on purpose: the page shows it rendered.
 */
const markdownAsText = (text: string): string =>
  text
    .replace(/!?\[([^\]]*)\]\([^)]*\)?/g, '$1')
    .replace(/(\*\*|__|`)/g, '')
    .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/gm, '');

/** The text of a JSON object that holds only one text field (`{"question": "…"}`), else null. */
export const soleText = (value: unknown): string | null => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const values = Object.values(value);
  return values.length === 1 && typeof values[0] === 'string' ? values[0] : null;
};

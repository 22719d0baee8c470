import type { TemplateFormat } from './templateFormat.ts';
import { templateVariables } from './templateVariables.ts';

/** The filled-in text, or what is wrong (a template that does not parse, a variable with no value). */
export type Rendered = { readonly text: string } | { readonly problem: string };

export type Variables = { readonly [name: string]: unknown };

const has = (o: unknown, key: string): boolean => typeof o === 'object' && o !== null && Object.hasOwn(o, key);

const lookup = (scopes: readonly unknown[], name: string): { found: boolean; value: unknown } => {
  if (name === '.') return { found: true, value: scopes[scopes.length - 1] };
  const [root, ...rest] = name.split('.');
  // Mustache resolves a name in the innermost section item that has it, then outwards.
  for (let i = scopes.length - 1; i >= 0; i--) {
    if (!has(scopes[i], root!)) continue;
    let value = (scopes[i] as Record<string, unknown>)[root!];
    for (const part of rest) value = has(value, part) ? (value as Record<string, unknown>)[part] : undefined;
    return { found: true, value };
  }
  return { found: false, value: undefined };
};

const asText = (value: unknown): string =>
  value === undefined || value === null
    ? ''
    : typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);

const truthy = (value: unknown): boolean =>
  !(value === undefined || value === null || value === false || value === '' || (Array.isArray(value) && value.length === 0));

/**
 * Mustache without HTML escaping (prompts are not HTML): `{{x}}`, `{{{x}}}`, `{{&x}}`, sections over
 * lists and truthy values, inverted sections, comments. The template was checked by
 * `mustacheVariables` first, so tags are balanced here.
 */
const renderMustache = (text: string, scopes: readonly unknown[]): string => {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) break;
    out += text.slice(i, open);
    const triple = text.startsWith('{{{', open);
    const close = triple ? '}}}' : '}}';
    const end = text.indexOf(close, open + close.length);
    const inner = text.slice(open + close.length, end).trim();
    const sigil = triple ? '&' : (inner[0] ?? '');
    const name = triple ? inner : '#^/!&'.includes(sigil) ? inner.slice(1).trim() : inner;
    i = end + close.length;
    if (sigil === '!') continue;
    if (sigil === '#' || sigil === '^') {
      // Find the matching close tag, counting nested sections of the same name.
      let depth = 1;
      let j = i;
      let bodyEnd = text.length;
      const tag = /\{\{\s*([#^/])\s*([^}]*?)\s*\}\}/g;
      tag.lastIndex = i;
      for (let m = tag.exec(text); m !== null; m = tag.exec(text)) {
        if (m[2] !== name) continue;
        depth += m[1] === '/' ? -1 : 1;
        if (depth === 0) {
          bodyEnd = m.index;
          j = m.index + m[0].length;
          break;
        }
      }
      const body = text.slice(i, bodyEnd);
      const { value } = lookup(scopes, name);
      if (sigil === '^') out += truthy(value) ? '' : renderMustache(body, scopes);
      else if (Array.isArray(value)) out += value.map((item) => renderMustache(body, [...scopes, item])).join('');
      else if (truthy(value)) out += renderMustache(body, typeof value === 'object' ? [...scopes, value] : scopes);
      i = j;
      continue;
    }
    out += asText(lookup(scopes, name).value);
  }
  return out + text.slice(i);
};

/** Python `str.format` with named fields; `{{`/`}}` are literal braces. Format specs are not applied. */
const renderFString = (text: string, variables: Variables): string =>
  text.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (whole, field: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const name = field!.split(/[!:]/, 1)[0]!;
    const path = name.replace(/\[(\w+)\]/g, '.$1');
    return asText(lookup([variables], path).value);
  });

/**
 * Fills a template text with variables. Every variable the template uses (outside sections) must
 * have a value: a missing one is named rather than silently sent as an empty string.
 */
export const renderTemplate = (format: TemplateFormat, text: string, variables: Variables): Rendered => {
  const parsed = templateVariables(format, text);
  if ('problem' in parsed) return parsed;
  const missing = parsed.variables.filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0)
    return { problem: `no value for variable${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}` };
  if (format === 'MUSTACHE') return { text: renderMustache(text, [variables]) };
  if (format === 'F_STRING') return { text: renderFString(text, variables) };
  return { text };
};

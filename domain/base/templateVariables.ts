import type { TemplateFormat } from './templateFormat.ts';

export { TEMPLATE_FORMATS, type TemplateFormat } from './templateFormat.ts';

/** A template's variables in order of first use, or what is wrong with it (naming the character). */
export type TemplateParse = { readonly variables: readonly string[] } | { readonly problem: string };

const quote = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
const PYTHON_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Python `str.format` fields, as the reference formats F_STRING templates: `{name}`,
 * `{name.attr}`, `{name[0]}`, `{name!r:>10}`; `{{` and `}}` are literal braces. A field must
 * name a variable (a positional `{}` or `{0}` has nothing to bind to), and a lone `}` or an
 * unclosed `{` is an error in Python too.
 */
export const fStringVariables = (text: string): TemplateParse => {
  const variables: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '}') {
      if (text[i + 1] === '}') {
        i += 2;
        continue;
      }
      return { problem: `single "}" at character ${i}: write "}}" for a literal brace` };
    }
    if (ch !== '{') {
      i++;
      continue;
    }
    if (text[i + 1] === '{') {
      i += 2;
      continue;
    }
    // A field ends at the "}" that balances it (a format spec may hold nested fields).
    let depth = 1;
    let end = i + 1;
    for (; end < text.length && depth > 0; end++) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}') depth--;
    }
    if (depth > 0)
      return { problem: `"{" at character ${i} is never closed: expected "}" before the end (write "{{" for a literal brace)` };
    const field = text.slice(i + 1, end - 1);
    const name = field.split(/[!:]/, 1)[0]!;
    const root = name.split(/[.[]/, 1)[0]!;
    if (root === '') return { problem: `"{${field}}" at character ${i} names no variable: write {name}` };
    if (!PYTHON_NAME.test(root)) return { problem: `${quote(`{${field}}`)} at character ${i}: ${quote(root)} is not a variable name` };
    const bang = field.indexOf('!');
    const colon = field.indexOf(':');
    if (bang >= 0 && (colon < 0 || bang < colon) && !/^[rsa]$/.test(field.slice(bang + 1, colon < 0 ? undefined : colon)))
      return { problem: `${quote(`{${field}}`)} at character ${i}: a conversion is !r, !s or !a` };
    if (!variables.includes(root)) variables.push(root);
    i = end;
  }
  return { variables };
};

const MUSTACHE_NAME = /^[A-Za-z0-9_$@-]+(\.[A-Za-z0-9_$@-]+)*$|^\.$/;

/**
 * Mustache tags: `{{name}}`, `{{{raw}}}`, `{{&raw}}`, sections `{{#list}}…{{/list}}` and
 * inverted `{{^x}}…{{/x}}`, comments `{{! … }}`. The variables are the names used outside any
 * section plus the section names (inside a section, names are relative to its items). Partials
 * and changed delimiters are refused: nothing would resolve them.
 */
export const mustacheVariables = (text: string): TemplateParse => {
  const variables: string[] = [];
  const open: { name: string; at: number }[] = [];
  const use = (name: string) => {
    const root = name.split('.', 1)[0]!;
    if (root !== '' && open.length === 0 && !variables.includes(root)) variables.push(root);
  };
  let i = text.indexOf('{{');
  while (i >= 0) {
    const triple = text.startsWith('{{{', i);
    const close = triple ? '}}}' : '}}';
    const end = text.indexOf(close, i + close.length);
    if (end < 0) return { problem: `"${triple ? '{{{' : '{{'}" at character ${i} is never closed: expected "${close}"` };
    const inner = text.slice(i + close.length, end).trim();
    const sigil = triple ? '&' : (inner[0] ?? '');
    const name = triple || !'#^/!>&='.includes(sigil) || sigil === '' ? inner : inner.slice(1).trim();
    const tag = quote(text.slice(i, end + close.length));
    if (sigil === '!') {
      i = text.indexOf('{{', end + close.length);
      continue;
    }
    if (sigil === '=') return { problem: `${tag} at character ${i}: changing delimiters is not supported` };
    if (sigil === '>') return { problem: `${tag} at character ${i}: partials are not supported` };
    if (name === '') return { problem: `${tag} at character ${i} names no variable` };
    if (!MUSTACHE_NAME.test(name))
      return { problem: `${tag} at character ${i}: a variable name is one word of letters, digits, "_", "-", separated by "."` };
    if (sigil === '#' || sigil === '^') {
      use(name);
      open.push({ name, at: i });
    } else if (sigil === '/') {
      const last = open.pop();
      if (last === undefined) return { problem: `${tag} at character ${i} closes no open section` };
      if (last.name !== name) return { problem: `${tag} at character ${i} closes "{{#${last.name}}}" opened at character ${last.at}` };
    } else use(name);
    i = text.indexOf('{{', end + close.length);
  }
  const unclosed = open.pop();
  if (unclosed !== undefined)
    return { problem: `section "{{#${unclosed.name}}}" at character ${unclosed.at} is never closed with "{{/${unclosed.name}}}"` };
  return { variables };
};

/** The variables of one text in a template format; NONE has none (braces are plain text). */
export const templateVariables = (format: TemplateFormat, text: string): TemplateParse =>
  format === 'MUSTACHE' ? mustacheVariables(text) : format === 'F_STRING' ? fStringVariables(text) : { variables: [] };

export type TemplateFormat = 'MUSTACHE' | 'F_STRING' | 'NONE';

/**
 * The variable names a template asks for, in order of first use, so the page can offer an input
 * for each. Only a preview: the server parses the template itself and names what is wrong.
 * Mustache sections, comments and partials (`{{#x}}`, `{{!x}}`, `{{>x}}`) are not inputs of their
 * own; an f-string's doubled braces are literal braces.
 */
export const templateVariables = (format: TemplateFormat, texts: readonly string[]): string[] => {
  const found = new Set<string>();
  for (const text of texts) {
    if (format === 'MUSTACHE') {
      for (const m of text.matchAll(/\{\{\{?\s*([#^/!>&]?)\s*([^{}\s]+?)\s*\}?\}\}/g)) {
        const [, sigil, name] = m;
        // `{{.}}` is the current item of a section, not an input.
        if ((sigil === '' || sigil === '&' || sigil === '#' || sigil === '^') && name !== '.') found.add(name!);
      }
    } else if (format === 'F_STRING') {
      const plain = text.replaceAll('{{', '').replaceAll('}}', '');
      for (const m of plain.matchAll(/\{\s*([^{}:!\s]+)[^{}]*\}/g)) found.add(m[1]!);
    }
  }
  return [...found];
};

/**
 * A DN in one spelling, so group DNs from the directory compare with the configured ones:
 * attribute types and values lower-cased, spaces around `=`, `,` and `+` dropped, the parts of a
 * multi-valued RDN sorted. Escaped separators (`\,`) stay inside their value. null for text that
 * is not a DN (an RDN without `=`).
 */
export const canonicalDn = (dn: string): string | null => {
  const rdns: string[] = [];
  for (const rdn of splitUnescaped(dn.trim(), ',')) {
    const parts: string[] = [];
    for (const ava of splitUnescaped(rdn, '+')) {
      const at = ava.indexOf('=');
      if (at <= 0) return null;
      const type = ava.slice(0, at).trim().toLowerCase();
      const value = ava
        .slice(at + 1)
        .trim()
        .toLowerCase();
      if (type === '' || !/^[a-z0-9.-]+$/.test(type)) return null;
      parts.push(`${type}=${value}`);
    }
    rdns.push(parts.sort().join('+'));
  }
  return rdns.join(',');
};

const splitUnescaped = (text: string, separator: string): string[] => {
  if (text === '') return [];
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i++;
    } else if (c === separator) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
};

import type { Attributes, AttributeValue } from './attributes.ts';

export const SESSION_ID_KEY = 'session.id';

/**
 * The session a span belongs to. Phoenix takes Python's `str()` of the decoded `session.id` value
 * and strips it, so `0` → "0", `true` → "True", `[1, 2]` → "[1, 2]", `["a"]` → "['a']". Using
 * the same text keeps session ids equal to what Phoenix users already query with.
 * Absent, empty, or blank after stripping → null.
 */
export const sessionIdOf = (attributes: Attributes): string | null => {
  const value = Object.hasOwn(attributes, SESSION_ID_KEY) ? attributes[SESSION_ID_KEY] : null;
  if (value === null || value === undefined) return null;
  const text = pythonStr(value).trim();
  return text === '' ? null : text;
};

const pythonStr = (v: NonNullable<AttributeValue>): string => ('str' in v ? v.str : pythonRepr(v));

const pythonRepr = (v: AttributeValue): string => {
  if (v === null) return 'None';
  if ('str' in v) return pythonStringRepr(v.str);
  if ('int' in v) return v.int;
  if ('float' in v) return pythonFloatRepr(v.float);
  if ('bool' in v) return v.bool ? 'True' : 'False';
  if ('bytes' in v) return pythonBytesRepr(Buffer.from(v.bytes, 'base64'));
  if ('array' in v) return `[${v.array.map(pythonRepr).join(', ')}]`;
  return `{${Object.entries(v.kvlist)
    .map(([k, x]) => `${pythonStringRepr(k)}: ${pythonRepr(x)}`)
    .join(', ')}}`;
};

/** Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export const pythonFloatRepr = (f: number | 'NaN' | 'Infinity' | '-Infinity'): string => {
  if (f === 'NaN') return 'nan';
  if (f === 'Infinity') return 'inf';
  if (f === '-Infinity') return '-inf';
  if (Object.is(f, -0)) return '-0.0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${whole}.${frac === '' ? '0' : frac}`;
  }
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
};

const CONTROL_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

const pythonStringRepr = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch in CONTROL_ESCAPES) out += CONTROL_ESCAPES[ch];
    else if (ch === quote) out += `\\${ch}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${quote}${out}${quote}`;
};

const pythonBytesRepr = (b: Buffer): string => {
  const quote = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  let out = '';
  for (const byte of b) {
    const ch = String.fromCharCode(byte);
    if (ch in CONTROL_ESCAPES) out += CONTROL_ESCAPES[ch];
    else if (ch === quote) out += `\\${ch}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `b${quote}${out}${quote}`;
};

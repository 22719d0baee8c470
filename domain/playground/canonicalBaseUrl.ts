import { isIP } from 'node:net';

/**
 * A base URL in the one form every rule compares (the allow-list, the base URL an admin bound a key
 * to): lower-case scheme and host, default port dropped, the path with one trailing slash, no query
 * or fragment, and one spelling per address. The WHATWG parser already turns `2130706433`,
 * `0x7f.1` and `0177.0.0.1` into `127.0.0.1`; this also turns an IPv4-mapped IPv6 address
 * (`[::ffff:127.0.0.1]`) into its IPv4 address, and the unspecified addresses `0.0.0.0` and `[::]`
 * into the loopback address a connection to them reaches on this host (`127.0.0.1`, `[::1]`), so
 * that no rule can be passed by spelling the same destination differently. Null when it is not an
 * http(s) URL (or carries credentials, which a base URL has no use for).
 */
export const canonicalBaseUrl = (raw: string): string | null => {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username !== '' || u.password !== '') return null;
  const host = canonicalHost(u.hostname);
  const port = u.port === '' ? '' : `:${u.port}`;
  const path = u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`;
  return `${u.protocol}//${isIP(host) === 6 ? `[${host}]` : host}${port}${path}`;
};

/** Hex groups of an IPv4-mapped IPv6 address as the WHATWG parser writes it (`::ffff:7f00:1`). */
const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** The host without brackets or a trailing dot, in the spelling `canonicalBaseUrl` describes. */
export const canonicalHost = (hostname: string): string => {
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
  const mapped = MAPPED.exec(host);
  if (mapped) {
    const hi = Number.parseInt(mapped[1]!, 16);
    const lo = Number.parseInt(mapped[2]!, 16);
    return canonicalHost(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) return canonicalHost(dotted[1]!);
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
};

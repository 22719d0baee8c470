import { BlockList, isIP } from 'node:net';

/**
 * The one rule for every URL the server calls because a user chose it (a playground call's base
 * URL, an alert's webhook or Slack URL). The server calls it from its own network position: without
 * a rule, anyone who may set such a URL could make it fetch a cloud metadata endpoint
 * (169.254.169.254) and read the credentials in the answer, or reach its own admin ports and the LAN
 * (SSRF). So:
 *
 * - Every URL is compared in one canonical form (`canonicalBaseUrl`): no spelling of an address
 *   passes where the address itself would not.
 * - A URL under an entry of the operator's allow-list (the caller's setting) is called.
 * - Any other URL is judged by what the caller lets unlisted URLs reach (`OutboundUrlRule.unlisted`):
 *   `listed-only` nothing; `no-metadata` anything but link-local and cloud metadata addresses (the
 *   playground: a self-hosted model on localhost or the LAN is what it is for); `public-only` public
 *   addresses only, no loopback, private, link-local or local name (alert destinations: a member's
 *   webhook has no business inside the server's network).
 * - Names are judged on their resolved addresses too (adapters/outbound/outboundUrlRule.ts resolves;
 *   a public name may point inward), and whoever calls must not follow redirects.
 */
export type OutboundReach = 'listed-only' | 'no-metadata' | 'public-only';

/** A caller's rule: the operator's allow-list (canonical prefixes, `parseAllowedUrls`), the setting that holds it (named in refusals), and what unlisted URLs may reach. */
export type OutboundUrlRule = { readonly allowed: readonly string[]; readonly setting: string; readonly unlisted: OutboundReach };

const subnets = (list: readonly (readonly [string, number])[]) => {
  const block = new BlockList();
  for (const [net, bits] of list) block.addSubnet(net, bits, isIP(net) === 4 ? 'ipv4' : 'ipv6');
  return block;
};

/** Link-local ranges (the metadata services of AWS, GCP, Azure, OpenStack live here) and other metadata addresses. */
const METADATA = subnets([
  ['169.254.0.0', 16],
  ['100.100.100.200', 32], // Alibaba Cloud
  ['fe80::', 10],
  ['fd00:ec2::254', 128], // AWS over IPv6
]);
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** Everything but public unicast: this host, private and shared networks, benchmarking, multicast, NAT64, unique-local. */
const NOT_PUBLIC = subnets([
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
  ['::', 127],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['ff00::', 8],
]);
/** Names that only mean something inside a network. */
const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain)$/;

const check = (block: BlockList, host: string): boolean => {
  const family = isIP(host);
  return family !== 0 && block.check(host, family === 4 ? 'ipv4' : 'ipv6');
};

/** Why an address (canonical spelling) or a host name may not be reached under `unlisted`, or null. */
const hostProblem = (host: string, unlisted: OutboundReach): string | null => {
  if (unlisted === 'listed-only') return 'it is not under one of the allowed base URLs';
  if (METADATA_NAMES.has(host)) return 'it names a cloud metadata service';
  if (check(METADATA, host)) return 'it is a link-local or cloud metadata address';
  if (unlisted === 'public-only' && (check(NOT_PUBLIC, host) || LOCAL_NAMES.test(host)))
    return 'it is a loopback, private or link-local address';
  return null;
};

/** Whether an allow-list entry covers the URL (compared in canonical form). */
export const isListedUrl = (target: string, rule: OutboundUrlRule): boolean => {
  const url = canonicalBaseUrl(target);
  return url !== null && rule.allowed.some((prefix) => url.startsWith(prefix));
};

/**
 * Null when the rule lets the server call `target` as far as the URL itself tells (no name is
 * resolved here), else why not. The URL to call is the canonical one (`canonicalBaseUrl`).
 */
export const outboundUrlProblem = (target: string, rule: OutboundUrlRule): string | null => {
  const url = canonicalBaseUrl(target);
  if (url === null) return 'it is not an http:// or https:// URL without credentials';
  if (isListedUrl(url, rule)) return null;
  return hostProblem(canonicalHost(new URL(url).hostname), rule.unlisted);
};

/**
 * Null when the addresses a URL's name resolved to may be reached, else why not (DNS may point a
 * public name at a metadata or private address). Nothing to check for a listed URL or an address.
 */
export const resolvedAddressesProblem = (target: string, addresses: readonly string[], rule: OutboundUrlRule): string | null => {
  const url = canonicalBaseUrl(target);
  if (url === null || isListedUrl(url, rule)) return null;
  const host = canonicalHost(new URL(url).hostname);
  for (const address of addresses) {
    const why = hostProblem(canonicalHost(address), rule.unlisted);
    if (why !== null) return `${host} resolves to ${address}, ${why.replace(/^it is /, '')}`;
  }
  return null;
};

/**
 * A refusal as callers show it after the field it came from: the URL (unless it is a credential,
 * as a Slack URL), why, and the setting that would allow it.
 */
export const outboundRefusal = (rule: OutboundUrlRule, why: string, url?: string): string =>
  `${url === undefined ? '' : `${JSON.stringify(url.slice(0, 200))} `}is not allowed: ${why}. An operator can allow it with ${rule.setting}.`;

/**
 * An allow-list setting: comma-separated http(s) URLs; a URL is allowed when it is one of them or
 * below one (`http://10.0.0.5:8000/` allows `http://10.0.0.5:8000/v1`). Empty means "no list".
 */
export const parseAllowedUrls = (raw: string): { readonly urls: readonly string[] } | { readonly problem: string } => {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const urls: string[] = [];
  for (const entry of entries) {
    const url = canonicalBaseUrl(entry);
    if (url === null) return { problem: `must be comma-separated http:// or https:// URLs (got ${JSON.stringify(entry)})` };
    urls.push(url);
  }
  return { urls };
};

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

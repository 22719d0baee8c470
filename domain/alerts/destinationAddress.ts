import { BlockList, isIP } from 'node:net';

/**
 * Where alert notifications may go. A rule's URL comes from any member, and the server posts to it
 * from its own network position: without a rule, anyone who may write alerts could make the server
 * call its own admin ports, the LAN or a cloud metadata service (SSRF). So loopback, private,
 * link-local and other non-public addresses are refused unless an operator listed the URL (a prefix
 * of it) in `SERVICE_ALERTS_ALLOWED_URLS`. Names are checked again on their resolved addresses when
 * a notification is sent (the reactor), and redirects are never followed.
 */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain)$/;

/** The host of a URL without brackets or a trailing dot, lower-case. */
const hostOf = (url: URL): string =>
  url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();

/** Whether an IP address (either family) is anything but a public unicast address. */
export const isNonPublicAddress = (address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

/** `SERVICE_ALERTS_ALLOWED_URLS`' entries: a URL is allowed when it starts with one of them. */
export const isAllowedUrl = (url: string, allowedPrefixes: readonly string[]): boolean =>
  allowedPrefixes.some((prefix) => url.startsWith(prefix));

/**
 * Why a destination URL is refused before anything is stored, or null: not an absolute http(s)
 * URL, credentials in it, or a host that is an address (or a local name) outside the public
 * internet and not allowed by the operator.
 */
export const destinationUrlProblem = (raw: string, allowedPrefixes: readonly string[]): string | null => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http:// or https:// URL (got ${url.protocol})`;
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (isAllowedUrl(url.href, allowedPrefixes)) return null;
  const host = hostOf(url);
  if (isNonPublicAddress(host) || LOCAL_NAMES.test(host))
    return 'is a loopback, private or link-local address; an operator can allow it with SERVICE_ALERTS_ALLOWED_URLS';
  return null;
};

/** Checks the addresses a destination's name resolved to at send time (DNS may point a public name inward). */
export const resolvedAddressProblem = (url: string, addresses: readonly string[], allowedPrefixes: readonly string[]): string | null => {
  if (isAllowedUrl(url, allowedPrefixes)) return null;
  const inward = addresses.find(isNonPublicAddress);
  return inward === undefined ? null : `resolves to ${inward}, a loopback, private or link-local address`;
};

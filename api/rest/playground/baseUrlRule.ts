import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { canonicalBaseUrl, canonicalHost } from '../../../domain/playground/canonicalBaseUrl.ts';
import { HttpError } from '../../http/httpError.ts';

/**
 * Where the playground may send a request. The base URL of an OpenAI-compatible provider comes
 * from the user, and the server calls it with its own network position: without a rule, anyone who
 * may run the playground could make the server fetch a cloud metadata endpoint (169.254.169.254)
 * and read the credentials in the answer (SSRF).
 *
 * - With `SERVICE_PLAYGROUND_ALLOWED_BASE_URLS` set, only base URLs under one of its entries are
 *   called (and nothing else is refused: the operator chose).
 * - Without it, every base URL is called except link-local and cloud metadata addresses, checked
 *   on the name's resolved addresses too. Loopback and private networks stay open: a self-hosted
 *   model (Ollama on localhost, vLLM on the LAN) is what the setting is for.
 */

/** Link-local ranges (the metadata services of AWS, GCP, Azure, OpenStack live here) and other metadata addresses. */
const METADATA = new BlockList();
METADATA.addSubnet('169.254.0.0', 16, 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
METADATA.addSubnet('fe80::', 10, 'ipv6');
METADATA.addAddress('fd00:ec2::254', 'ipv6'); // AWS over IPv6
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const refused = (where: string, baseUrl: string, why: string): HttpError =>
  new HttpError(
    403,
    'base_url_not_allowed',
    `${where}: ${JSON.stringify(baseUrl.slice(0, 200))} is not allowed: ${why}. An operator can allow it with SERVICE_PLAYGROUND_ALLOWED_BASE_URLS.`,
  );

/** An IP address in canonical spelling (canonicalBaseUrl.ts: IPv4-mapped IPv6 is already IPv4). */
const blocked = (address: string): boolean => {
  const host = canonicalHost(address);
  const family = isIP(host);
  return family !== 0 && METADATA.check(host, family === 4 ? 'ipv4' : 'ipv6');
};

/**
 * `SERVICE_PLAYGROUND_ALLOWED_BASE_URLS`: comma-separated http(s) URLs; a base URL is allowed
 * when it is one of them or below one (`http://10.0.0.5:8000/` allows `http://10.0.0.5:8000/v1`).
 * Empty means "no list": the default rule applies.
 */
export const parseAllowedBaseUrls = (raw: string): { readonly urls: readonly string[] } | { readonly problem: string } => {
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
 * Refuses (403 naming the rule) a base URL the server must not call. `allowed` is the operator's
 * list (empty: the default rule); `where` names it in the refusal (`body.base_url`). Every spelling
 * of an address is compared in one canonical form (canonicalBaseUrl.ts). Names are resolved here so
 * that a name pointing at a metadata address is refused as the address itself would be.
 */
export const checkBaseUrl = async (baseUrl: string, allowed: readonly string[], where = 'body.base_url'): Promise<void> => {
  const url = canonicalBaseUrl(baseUrl);
  if (url === null) throw refused(where, baseUrl, 'it is not an http:// or https:// URL');
  if (allowed.length > 0) {
    if (!allowed.some((prefix) => url.startsWith(prefix))) throw refused(where, baseUrl, 'it is not under one of the allowed base URLs');
    return;
  }
  const host = canonicalHost(new URL(url).hostname);
  if (METADATA_NAMES.has(host)) throw refused(where, baseUrl, 'it names a cloud metadata service');
  if (isIP(host) !== 0) {
    if (blocked(host)) throw refused(where, baseUrl, 'it is a link-local or cloud metadata address');
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    // An unknown name fails in the provider call, where the person sees it as "could not reach".
    return;
  }
  if (addresses.some((a) => blocked(a.address)))
    throw refused(where, baseUrl, `${host} resolves to a link-local or cloud metadata address`);
};

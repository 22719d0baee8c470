import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { canonicalBaseUrl, canonicalHost } from '../../domain/playground/canonicalBaseUrl.ts';

/**
 * Where the server may send a request whose URL a user chose: a playground call's base URL, an
 * alert's webhook. The server calls it with its own network position: without a rule, anyone who
 * may set such a URL could make the server fetch a cloud metadata endpoint (169.254.169.254) and
 * read the credentials in the answer (SSRF). One rule for every such URL:
 *
 * - With an allow-list set by the operator (`SERVICE_PLAYGROUND_ALLOWED_BASE_URLS` for model
 *   providers), only URLs under one of its entries are called (and nothing else is refused: the
 *   operator chose).
 * - Without it, every URL is called except link-local and cloud metadata addresses, checked on the
 *   name's resolved addresses too. Loopback and private networks stay open: a self-hosted model
 *   (Ollama on localhost, vLLM on the LAN) or an in-house webhook receiver is what they are for.
 *
 * Redirects are not this rule's business: whoever fetches must not follow them (providerFetch.ts),
 * or an allowed URL could send the request on to one no rule checked.
 */

/** Link-local ranges (the metadata services of AWS, GCP, Azure, OpenStack live here) and other metadata addresses. */
const METADATA = new BlockList();
METADATA.addSubnet('169.254.0.0', 16, 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud
METADATA.addSubnet('fe80::', 10, 'ipv6');
METADATA.addAddress('fd00:ec2::254', 'ipv6'); // AWS over IPv6
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** What the rule is: the operator's list (empty: the default rule) and the setting that holds it, named in refusals. */
export type OutboundUrlRule = { readonly allowed: readonly string[]; readonly setting: string };

/** Why a URL may not be called, naming where it came from and the setting that would allow it. */
export type OutboundRefusal = { readonly message: string };

const refused = (rule: OutboundUrlRule, where: string, url: string, why: string): OutboundRefusal => ({
  message: `${where}: ${JSON.stringify(url.slice(0, 200))} is not allowed: ${why}. An operator can allow it with ${rule.setting}.`,
});

/** An IP address in canonical spelling (canonicalBaseUrl.ts: IPv4-mapped IPv6 is already IPv4). */
const blocked = (address: string): boolean => {
  const host = canonicalHost(address);
  const family = isIP(host);
  return family !== 0 && METADATA.check(host, family === 4 ? 'ipv4' : 'ipv6');
};

/**
 * An allow-list setting: comma-separated http(s) URLs; a URL is allowed when it is one of them or
 * below one (`http://10.0.0.5:8000/` allows `http://10.0.0.5:8000/v1`). Empty means "no list": the
 * default rule applies.
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
 * Null when the server may call `target`, else why not. `where` names it in the refusal
 * (`body.base_url`, `OLLAMA_BASE_URL`, a webhook's field). Every spelling of an address is compared
 * in one canonical form (canonicalBaseUrl.ts). Names are resolved here so that a name pointing at a
 * metadata address is refused as the address itself would be.
 */
export const checkOutboundUrl = async (target: string, rule: OutboundUrlRule, where: string): Promise<OutboundRefusal | null> => {
  const url = canonicalBaseUrl(target);
  if (url === null) return refused(rule, where, target, 'it is not an http:// or https:// URL');
  if (rule.allowed.length > 0)
    return rule.allowed.some((prefix) => url.startsWith(prefix))
      ? null
      : refused(rule, where, target, 'it is not under one of the allowed base URLs');
  const host = canonicalHost(new URL(url).hostname);
  if (METADATA_NAMES.has(host)) return refused(rule, where, target, 'it names a cloud metadata service');
  if (isIP(host) !== 0) return blocked(host) ? refused(rule, where, target, 'it is a link-local or cloud metadata address') : null;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    // An unknown name fails in the call itself, where the person sees it as "could not reach".
    return null;
  }
  return addresses.some((a) => blocked(a.address))
    ? refused(rule, where, target, `${host} resolves to a link-local or cloud metadata address`)
    : null;
};

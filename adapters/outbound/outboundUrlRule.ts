import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  canonicalBaseUrl,
  canonicalHost,
  isListedUrl,
  type OutboundUrlRule,
  outboundRefusal,
  outboundUrlProblem,
  resolvedAddressesProblem,
} from '../../domain/base/outboundUrl.ts';

/**
 * Why a URL may not be called: `message` names where it came from, the URL and the setting that
 * would allow it; `why` alone names no URL (for where the URL is a credential, as a Slack URL).
 */
export type OutboundRefusal = { readonly message: string; readonly why: string };

const refusal = (rule: OutboundUrlRule, where: string, target: string, why: string): OutboundRefusal => ({
  message: `${where}: ${outboundRefusal(rule, why, target)}`,
  why,
});

/**
 * The outbound URL rule (domain/base/outboundUrl.ts) where a request is about to leave: the URL
 * itself, then the addresses its name resolves to now, so a name pointing at an address the rule
 * refuses is refused as the address itself would be. Null when the server may call `target`.
 * `where` names it in the refusal (`body.base_url`, `OLLAMA_BASE_URL`, an alert's destination).
 * Redirects are not this rule's business: whoever fetches must not follow them, or an allowed URL
 * could send the request on to one no rule checked.
 */
export const checkOutboundUrl = async (target: string, rule: OutboundUrlRule, where: string): Promise<OutboundRefusal | null> => {
  const why = outboundUrlProblem(target, rule);
  if (why !== null) return refusal(rule, where, target, why);
  const url = canonicalBaseUrl(target)!;
  const host = canonicalHost(new URL(url).hostname);
  // An address was judged as it is; a listed URL is called whatever its name resolves to.
  if (isIP(host) !== 0 || isListedUrl(url, rule)) return null;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    // An unknown name fails in the call itself, where the person sees it as "could not reach".
    return null;
  }
  const inward = resolvedAddressesProblem(
    url,
    addresses.map((a) => a.address),
    rule,
  );
  return inward === null ? null : refusal(rule, where, target, inward);
};

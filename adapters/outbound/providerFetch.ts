/** Headers the SDKs send that carry no credential; everything else they add is dropped. */
const PLAIN = new Set(['accept', 'content-type', 'user-agent', 'anthropic-version', 'idempotency-key']);

/**
 * The fetch the provider SDKs are given, so that what leaves the server is decided here and only
 * here:
 * - redirects are never followed (`redirect: 'manual'`): a 3xx reaches the SDK as an error, so an
 *   allowed base URL cannot send the call, and its key, on to a host no rule checked;
 * - the one credential header is the key chosen for this call (`Authorization: Bearer` for
 *   OpenAI-compatible servers, `x-api-key` for Anthropic) or none. Whatever else the SDKs would add
 *   from the server's environment (`OPENAI_CUSTOM_HEADERS`, `ANTHROPIC_AUTH_TOKEN`, organization and
 *   project ids) is dropped, since the destination may be a server the caller controls.
 */
export const providerFetch =
  (sdk: 'openai' | 'anthropic', key: string | null): typeof fetch =>
  (input, init) => {
    const given = new Headers(init?.headers);
    const headers = new Headers();
    for (const [name, value] of given) if (PLAIN.has(name) || name.startsWith('x-stainless-')) headers.set(name, value);
    if (key !== null) {
      if (sdk === 'anthropic') headers.set('x-api-key', key);
      else headers.set('authorization', `Bearer ${key}`);
    }
    return fetch(input, { ...init, headers, redirect: 'manual' });
  };

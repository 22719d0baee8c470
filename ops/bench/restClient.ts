/** The few REST reads the benchmarks and the SIGKILL check make, with the Phoenix wire shapes. */

export type RestSpan = { readonly context: { readonly trace_id: string; readonly span_id: string } };
type Page<T> = { readonly data: readonly T[]; readonly next_cursor: string | null };

export const getJson = async <T>(url: string): Promise<{ status: number; body: T }> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text: an error page
  }
  return { status: response.status, body: body as T };
};

/**
 * The span ids stored for these traces, read through `GET /v1/projects/{p}/spans?trace_id=...`,
 * following `next_cursor`. Trace ids go `chunk` at a time to keep URLs short.
 */
export const spanIdsOfTraces = async (baseUrl: string, project: string, traceIds: readonly string[], chunk = 40): Promise<Set<string>> => {
  const found = new Set<string>();
  for (let i = 0; i < traceIds.length; i += chunk) {
    const params = new URLSearchParams({ limit: '1000' });
    for (const id of traceIds.slice(i, i + chunk)) params.append('trace_id', id);
    let cursor: string | null = null;
    do {
      if (cursor !== null) params.set('cursor', cursor);
      const url = `${baseUrl}/v1/projects/${encodeURIComponent(project)}/spans?${params}`;
      const { status, body } = await getJson<Page<RestSpan>>(url);
      if (status === 404) return found; // the project does not exist (yet)
      if (status !== 200) throw new Error(`GET ${url} → ${status}: ${JSON.stringify(body).slice(0, 300)}`);
      for (const span of body.data) found.add(`${span.context.trace_id}:${span.context.span_id}`);
      cursor = body.next_cursor;
    } while (cursor !== null);
  }
  return found;
};

/** Polls REST until every one of these spans is listed; throws after `timeoutMs`. */
export const waitUntilListed = async (
  baseUrl: string,
  project: string,
  spans: readonly { readonly traceId: string; readonly spanId: string }[],
  timeoutMs: number,
  pollMs = 100,
): Promise<void> => {
  const wanted = spans.map((s) => `${s.traceId}:${s.spanId}`);
  const traceIds = [...new Set(spans.map((s) => s.traceId))];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await spanIdsOfTraces(baseUrl, project, traceIds);
    const missing = wanted.filter((id) => !found.has(id)).length;
    if (missing === 0) return;
    if (Date.now() > deadline) throw new Error(`${missing} spans still not listed after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
};

/**
 * Polls full-text search until each word is found (`GET …/spans?search=word`): search trails the
 * spans list (projections/tracing/spanTextSearch.ts). Throws after `timeoutMs`.
 */
export const waitUntilSearchable = async (
  baseUrl: string,
  project: string,
  words: readonly string[],
  timeoutMs: number,
  pollMs = 100,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let missing = [...words];
  for (;;) {
    const still: string[] = [];
    for (const word of missing) {
      const url = `${baseUrl}/v1/projects/${encodeURIComponent(project)}/spans?limit=1&search=${encodeURIComponent(word)}`;
      const { status, body } = await getJson<Page<RestSpan>>(url);
      if (status !== 200) throw new Error(`GET ${url} → ${status}: ${JSON.stringify(body).slice(0, 300)}`);
      if (body.data.length === 0) still.push(word);
    }
    missing = still;
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${missing.length} words still not found after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
};

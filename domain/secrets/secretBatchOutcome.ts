/**
 * What a batch of secret writes amounts to, in the reference's answer order: the request walked
 * from the end, each (trimmed) key once, so the last entry for a key wins. Shared by REST's
 * `PUT /v1/secrets` and GraphQL's `upsertOrDeleteSecrets`.
 */
export const secretBatchOutcome = (entries: readonly { readonly key: string; readonly value: string | null }[]) => {
  const seen = new Set<string>();
  const upserted: string[] = [];
  const deleted: string[] = [];
  for (const { key, value } of [...entries].reverse()) {
    const name = key.trim();
    if (seen.has(name)) continue;
    seen.add(name);
    (value === null ? deleted : upserted).push(name);
  }
  return { upserted, deleted };
};

/**
 * The trace ids a TracesExpired lists, as the read models match them. The log may hold a crafted
 * one: a list that is not one, an id that is not a string, or not text Postgres can hold (a NUL,
 * a lone surrogate; no stored id has one, `storable.ts` replaced them) matches nothing, rather
 * than failing the statement that would have applied the rest.
 */
export const expiredTraceIds = (data: unknown): string[] => {
  const ids = (data as { traceIds?: unknown } | null)?.traceIds;
  if (!Array.isArray(ids)) return [];
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && !id.includes('\u0000') && id.isWellFormed()))];
};

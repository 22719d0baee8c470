/**
 * The tables' annotation filter, kept in the URL beside the span filters
 * (`?annotation=correctness&label=correct,partly&minScore=0.5`), so a filtered list can be linked.
 */
export type AnnotationFilterState = {
  readonly name: string;
  readonly labels: readonly string[];
  readonly minScore: number | null;
  readonly maxScore: number | null;
};

type Search = Record<string, string | number | boolean>;

const text = (search: Search, key: string): string => (search[key] === undefined ? '' : String(search[key]).trim());
const numberOrNull = (raw: string): number | null => (raw === '' || !Number.isFinite(Number(raw)) ? null : Number(raw));

/** null when the URL carries no annotation filter. */
export const annotationFilterFromSearch = (search: Search): AnnotationFilterState | null => {
  const name = text(search, 'annotation');
  if (name === '') return null;
  return {
    name,
    labels: text(search, 'label')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    minScore: numberOrNull(text(search, 'minScore')),
    maxScore: numberOrNull(text(search, 'maxScore')),
  };
};

export const annotationFilterToSearch = (filter: AnnotationFilterState | null): Record<string, string> =>
  filter === null
    ? {}
    : {
        annotation: filter.name,
        ...(filter.labels.length ? { label: filter.labels.join(',') } : {}),
        ...(filter.minScore !== null ? { minScore: String(filter.minScore) } : {}),
        ...(filter.maxScore !== null ? { maxScore: String(filter.maxScore) } : {}),
      };

/** As the API's AnnotationFilter input takes it. */
export const apiAnnotationFilter = (filter: AnnotationFilterState) => ({
  name: filter.name,
  ...(filter.labels.length ? { labels: filter.labels } : {}),
  ...(filter.minScore !== null ? { minScore: filter.minScore } : {}),
  ...(filter.maxScore !== null ? { maxScore: filter.maxScore } : {}),
});

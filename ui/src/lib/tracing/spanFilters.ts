import { SPAN_KINDS, type SpanKind, STATUS_CODES, type StatusCode } from './tracingTypes.ts';

/**
 * The span filters of the Traces and Spans tabs, kept in the URL (`?status=ERROR&kind=llm,tool&
 * name=chat&attr=llm.model_name%3Dgpt-4`) so a filtered list can be linked and survives a reload.
 * Lists are OR within, filters AND across, as the API applies them.
 */
export type SpanFilterState = {
  readonly statusCodes: readonly StatusCode[];
  readonly spanKinds: readonly SpanKind[];
  readonly names: readonly string[];
  readonly attributes: readonly { readonly key: string; readonly value: string }[];
  /** The filter language (`?where=`), applied on top of the above. */
  readonly condition: string;
  /** Full-text search (`?q=`). */
  readonly search: string;
};

/** costTotal: rows without a cost come last in either direction (the server's rule). */
export type TraceSortState = { readonly col: 'startTime' | 'latencyMs' | 'costTotal'; readonly dir: 'asc' | 'desc' };

export const NO_FILTER: SpanFilterState = { statusCodes: [], spanKinds: [], names: [], attributes: [], condition: '', search: '' };
export const DEFAULT_SORT: TraceSortState = { col: 'startTime', dir: 'desc' };

type Search = Record<string, string | number | boolean>;

// The router turns "5" into 5 and "true" into true: every value is read back as text.
const text = (search: Search, key: string): string => (search[key] === undefined ? '' : String(search[key]));
const list = (search: Search, key: string): string[] =>
  text(search, key)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `key=value` (the first `=` splits; the value may contain more). */
export const parseAttributeFilter = (raw: string): { key: string; value: string } | null => {
  const at = raw.indexOf('=');
  if (at <= 0) return null;
  const key = raw.slice(0, at).trim();
  const value = raw.slice(at + 1).trim();
  return key === '' ? null : { key, value };
};

export const filterFromSearch = (search: Search): SpanFilterState => {
  const attribute = parseAttributeFilter(text(search, 'attr'));
  const name = text(search, 'name').trim();
  return {
    statusCodes: list(search, 'status').filter((s): s is StatusCode => (STATUS_CODES as readonly string[]).includes(s)),
    spanKinds: list(search, 'kind').filter((k): k is SpanKind => (SPAN_KINDS as readonly string[]).includes(k)),
    names: name ? [name] : [],
    attributes: attribute ? [attribute] : [],
    condition: text(search, 'where').trim(),
    search: text(search, 'q').trim(),
  };
};

export const filterToSearch = (filter: SpanFilterState): Record<string, string> => ({
  ...(filter.statusCodes.length ? { status: filter.statusCodes.join(',') } : {}),
  ...(filter.spanKinds.length ? { kind: filter.spanKinds.join(',') } : {}),
  ...(filter.names[0] ? { name: filter.names[0] } : {}),
  ...(filter.attributes[0] ? { attr: `${filter.attributes[0].key}=${filter.attributes[0].value}` } : {}),
  ...(filter.condition ? { where: filter.condition } : {}),
  ...(filter.search ? { q: filter.search } : {}),
});

export const isFiltered = (filter: SpanFilterState): boolean =>
  filter.statusCodes.length + filter.spanKinds.length + filter.names.length + filter.attributes.length > 0 ||
  filter.condition !== '' ||
  filter.search !== '';

export const sortFromSearch = (search: Search): TraceSortState => {
  const col = text(search, 'sort');
  const dir = text(search, 'dir');
  return { col: col === 'latencyMs' || col === 'costTotal' ? col : 'startTime', dir: dir === 'asc' ? 'asc' : 'desc' };
};

export const sortToSearch = (sort: TraceSortState): Record<string, string> =>
  sort.col === DEFAULT_SORT.col && sort.dir === DEFAULT_SORT.dir ? {} : { sort: sort.col, dir: sort.dir };

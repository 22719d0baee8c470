import { type AnnotationFilterState, annotationFilterFromSearch, annotationFilterToSearch } from '../annotations/annotationFilter.ts';
import { choiceFromSearch, choiceToSearch, type TimeRangeChoice } from '../time/timeRange.ts';
import { pageSizeFromSearch, pageSizeToSearch } from './pageSize.ts';
import {
  filterFromSearch,
  filterToSearch,
  type SpanFilterState,
  sortFromSearch,
  sortToSearch,
  type TraceSortState,
} from './spanFilters.ts';

/**
 * What the Traces and Spans tabs list, as their URL keeps it: a link or a reload shows the same
 * rows. Each tab may keep more beside it (the Spans tab's "root spans only").
 */
export type SpanTabQuery = {
  readonly choice: TimeRangeChoice;
  readonly filter: SpanFilterState;
  readonly sort: TraceSortState;
  /** Set, it lists the rows annotated so, newest first, instead. */
  readonly annotation: AnnotationFilterState | null;
  readonly pageSize: number;
};

export const spanTabQueryFromSearch = (search: Record<string, string>): SpanTabQuery => ({
  choice: choiceFromSearch(search),
  filter: filterFromSearch(search),
  sort: sortFromSearch(search),
  annotation: annotationFilterFromSearch(search),
  pageSize: pageSizeFromSearch(search),
});

/** `extra` goes between the filters and the sort, where the Spans tab has always put `root`. */
export const spanTabQueryToSearch = (query: SpanTabQuery, extra: Record<string, string> = {}): Record<string, string | number> => ({
  ...choiceToSearch(query.choice),
  ...filterToSearch(query.filter),
  ...extra,
  ...sortToSearch(query.sort),
  ...annotationFilterToSearch(query.annotation),
  ...pageSizeToSearch(query.pageSize),
});

import { CursorPaging } from './cursorPaging.svelte.ts';
import type { Page } from './tracingTypes.ts';

/**
 * The page a cursor-paged table shows, fetched again whenever what `fetchPage` reads (filters, sort,
 * range, the cursor) changes. The last page stays shown, dimmed by `loading`, until the next one
 * arrives; a superseded request is aborted, so a slow answer never replaces a newer one.
 * Construct it while a component initialises (it owns an effect).
 */
export class CursorPagedList<Row> {
  readonly paging: CursorPaging;
  page = $state<Page<Row> | null>(null);
  loading = $state(false);
  error = $state<unknown>(null);

  /** `key` describes the query, so that a new filter starts again on page 1 (see CursorPaging). */
  constructor(key: () => string, fetchPage: (after: string | null, signal: AbortSignal) => Promise<Page<Row>>) {
    this.paging = new CursorPaging(key);
    $effect(() => {
      const controller = new AbortController();
      this.loading = true;
      this.error = null;
      fetchPage(this.paging.after, controller.signal).then(
        (result) => {
          this.page = result;
          this.loading = false;
        },
        (e) => {
          if (controller.signal.aborted) return;
          this.error = e;
          this.loading = false;
        },
      );
      return () => controller.abort();
    });
  }

  next(): void {
    this.paging.next(this.page?.pageInfo.endCursor ?? null);
  }

  prev(): void {
    this.paging.prev();
  }
}

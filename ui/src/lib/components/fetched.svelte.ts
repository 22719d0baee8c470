/**
 * One thing a page shows, fetched again whenever what `fetch` reads changes (an id in the route, a
 * selection). The last value stays until the next arrives; a superseded request is aborted, and its
 * failure isn't shown. `fetch` may return null for "nothing to fetch now": the last value and error stay.
 * Construct it while a component initialises (it owns an effect).
 */
export class Fetched<T> {
  value = $state<T | null>(null);
  error = $state<unknown>(null);

  constructor(fetch: (signal: AbortSignal) => Promise<T> | null) {
    $effect(() => {
      const controller = new AbortController();
      const pending = fetch(controller.signal);
      if (pending === null) return;
      this.error = null;
      pending.then(
        (value) => (this.value = value),
        (e) => {
          if (!controller.signal.aborted) this.error = e;
        },
      );
      return () => controller.abort();
    });
  }
}

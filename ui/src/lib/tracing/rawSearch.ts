import { route } from '../../router.ts';

/**
 * The URL's query as text. The router's `route.search` turns values that look like numbers into
 * numbers ("0000000000001234" → 1234, "12e4…" → a float), which would corrupt span ids and names;
 * pages read it to stay reactive and take the values from here.
 */
export const rawSearch = (): Record<string, string> => Object.fromEntries(new URLSearchParams(window.location.search));

/** `rawSearch()` for a `$derived`: it reads `route.search`, so it is taken again whenever the query changes. */
export const routeSearch = (): Record<string, string> => {
  void route.search;
  return rawSearch();
};

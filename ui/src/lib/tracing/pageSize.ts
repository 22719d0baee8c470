/**
 * The rows-per-page choice of the project tables, kept in the URL (`size`) only when it isn't the
 * default, so a plain link stays plain.
 */
export const PAGE_SIZES = [25, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 50;

export const pageSizeFromSearch = (search: Record<string, unknown>): number =>
  (PAGE_SIZES as readonly number[]).includes(Number(search.size)) ? Number(search.size) : DEFAULT_PAGE_SIZE;

export const pageSizeToSearch = (size: number): { size?: number } => (size !== DEFAULT_PAGE_SIZE ? { size } : {});

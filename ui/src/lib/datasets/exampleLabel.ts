/**
 * How an example's id reads in a table: an example without an external id of its own is known by
 * its GlobalID (base64 of `DatasetExample:<n>`), which printed as is wraps over three lines of
 * letters nobody can tell apart; it reads `#<n>` instead (the full id stays in the row's title
 * and data). An external id the uploader chose reads as they wrote it.
 */
export const exampleLabel = (id: string): string => {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(id)) return id;
  let decoded: string;
  try {
    decoded = atob(id);
  } catch {
    return id;
  }
  const match = /^DatasetExample:(\d+)$/.exec(decoded);
  return match ? `#${match[1]}` : id;
};

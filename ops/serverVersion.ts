/**
 * The Phoenix API level Loupe implements. The official clients read it from the
 * `x-phoenix-server-version` header and refuse features newer than it (docs/reference/stack-notes.md §7).
 */
export const PHOENIX_API_LEVEL = '15.5.0';

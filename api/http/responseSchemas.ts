import { z } from 'zod';

/**
 * The envelopes Phoenix's REST answers come in (docs/reference/ OpenAPI), for routes' declared
 * `responses`: `{data: item}`, `{data: [items]}` and the page `{data: [items], next_cursor}`.
 */
export const dataOf = <T extends z.ZodType>(item: T) => z.object({ data: item });
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** An instant as the wire carries it: ISO-8601 text. */
export const isoTime = z.string();
/** A JSON value of any shape (attributes, metadata, dataset examples): the user's own. */
export const anyJson = z.unknown();

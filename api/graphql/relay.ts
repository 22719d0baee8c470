import 'reflect-metadata';
import { Field, ID, InterfaceType, ObjectType } from 'type-graphql';
import { fromGlobalId, toGlobalId } from '../http/globalId.ts';
import { gqlError } from './graphqlError.ts';

/** Anything with a global id (the same base64 `<Type>:<id>` REST uses) that `node(id:)` fetches. */
@InterfaceType('Node')
export abstract class Node {
  @Field(() => ID)
  id!: string;
}

@ObjectType()
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => Boolean)
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true })
  startCursor!: string | null;

  @Field(() => String, { nullable: true })
  endCursor!: string | null;
}

export type Edge<T> = { readonly cursor: string; readonly node: T };
export type Connection<T> = { readonly edges: readonly Edge<T>[]; readonly pageInfo: PageInfo };

/** The seed's limit on span, trace and session connections. */
export const MAX_FIRST = 1000;

/** `first` checked against the limit, naming the argument on a bad value. */
export const checkFirst = (first: number, max = MAX_FIRST): number => {
  if (!Number.isInteger(first) || first < 1 || first > max) {
    throw gqlError('invalid_first', `Argument "first" must be between 1 and ${max} (got ${first})`);
  }
  return first;
};

const END = 'End';

/**
 * Cursors. Our list queries start a page at a row (inclusive) and fetch one row more than asked,
 * so the cursor of an edge is "continue at the row after this one": the next row's global id
 * (the same form REST's `next_cursor` takes), or an end marker on the last row of the data.
 * `after: <edge cursor>` therefore means exactly "after this edge", as Relay wants.
 */
export type After = { readonly kind: 'start' } | { readonly kind: 'from'; readonly rowid: number } | { readonly kind: 'end' };

export const parseAfter = (after: string | null | undefined, type: string): After => {
  if (after === null || after === undefined || after === '') return { kind: 'start' };
  if (fromGlobalId(END, after) !== null) return { kind: 'end' };
  const id = fromGlobalId(type, after);
  if (id === null || !/^\d{1,15}$/.test(id)) throw gqlError('invalid_cursor', `Argument "after": invalid cursor ${JSON.stringify(after)}`);
  return { kind: 'from', rowid: Number(id) };
};

export const emptyConnection = <T>(): Connection<T> => ({
  edges: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
});

/** A connection from `limit + 1` rows whose ids are row ids of `type`. */
export const connectionOf = <R extends { readonly id: number }, T>(
  rows: readonly R[],
  limit: number,
  type: string,
  toNode: (row: R, index: number) => T,
  hasPrevious = false,
): Connection<T> => {
  const shown = rows.slice(0, limit);
  const cursorAt = (i: number) => (i + 1 < rows.length ? toGlobalId(type, String(rows[i + 1]!.id)) : toGlobalId(END, '0'));
  const edges = shown.map((row, i) => ({ cursor: cursorAt(i), node: toNode(row, i) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > limit,
      hasPreviousPage: hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
};

/** The cursor of the last edge of the data. */
export const END_CURSOR = toGlobalId(END, '0');

/** A page whose rows are keyed by strings, cursors as in relay.ts: each edge's names the row after it. */
export const stringConnection = <R, T>(
  rows: readonly R[],
  next: string | null,
  type: string,
  keyOf: (r: R) => string,
  toNode: (r: R) => T,
  hasPrevious: boolean,
): Connection<T> => {
  const edges = rows.map((r, i) => {
    const following = i + 1 < rows.length ? keyOf(rows[i + 1]!) : next;
    return { cursor: following === null ? END_CURSOR : toGlobalId(type, following), node: toNode(r) };
  });
  return {
    edges,
    pageInfo: {
      hasNextPage: next !== null,
      hasPreviousPage: hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
};

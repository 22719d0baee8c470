import { GraphQLError } from 'graphql';
import { shapeError } from '../http/errorMiddleware.ts';

/**
 * A GraphQL error carrying the same `code` (and the HTTP status REST would answer) as the REST
 * layer's `{"detail", "code"}`, in `extensions`, so the UI handles both alike.
 */
export const gqlError = (code: string, message: string, status = 400): GraphQLError =>
  new GraphQLError(message, { extensions: { code, status } });

/** A thrown domain/HTTP error as a GraphQL error with its code; anything else stays as it is (masked later). */
export const asGraphqlError = (error: unknown): unknown => {
  if (error instanceof GraphQLError) return error;
  const shaped = shapeError(error);
  return shaped === null ? error : gqlError(shaped.code, shaped.detail, shaped.status);
};

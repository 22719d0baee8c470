import { ApiError } from './apiError.ts';
import { http, renewSession, sessionLost } from './http.ts';

type GraphqlError = { message: string; extensions?: { code?: string; status?: number } };
type GraphqlReply<T> = { data?: T | null; errors?: GraphqlError[] };

const asApiError = (error: GraphqlError): ApiError =>
  new ApiError(error.extensions?.status ?? 400, error.extensions?.code ?? 'graphql_error', error.message);

/**
 * A GraphQL operation against /graphql. Errors carry the same `code` and status as REST (in
 * `extensions`); an expired session is renewed once, as for REST. A partial answer with errors is
 * an error: pages show the server's message rather than half a table.
 */
export const gql = async <T>(query: string, variables: Record<string, unknown> = {}, signal?: AbortSignal): Promise<T> => {
  const post = () => http<GraphqlReply<T>>('/graphql', { method: 'POST', json: { query, variables }, signal });
  let reply = await post();
  if (reply.errors?.[0]?.extensions?.status === 401) {
    if (await renewSession()) reply = await post();
    if (reply.errors?.[0]?.extensions?.status === 401) sessionLost();
  }
  const first = reply.errors?.[0];
  if (first !== undefined) throw asApiError(first);
  if (reply.data === undefined || reply.data === null) throw new ApiError(500, 'graphql_empty', 'The server returned no data');
  return reply.data;
};

import { callAs, type Credentials, type Reply } from '../../support/authClient.ts';
import type { TestServer } from '../../support/testServer.ts';

/** POSTs a GraphQL operation to /graphql as `as` (none = no credentials). */
export const gql = (
  server: Pick<TestServer, 'baseUrl'>,
  query: string,
  variables: Record<string, unknown> = {},
  as?: Credentials,
): Promise<Reply> =>
  callAs(server, 'POST', '/graphql', {
    as,
    json: { query, variables },
    headers: { accept: 'application/graphql-response+json, application/json' },
  });

/** The `data` of a reply that must have succeeded; throws with the errors otherwise. */
export const dataOf = (reply: Reply): any => {
  if (reply.status !== 200 || reply.body?.errors) throw new Error(`GraphQL failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.data;
};

/** The codes of the errors of a reply, in order. */
export const errorCodes = (reply: Reply): string[] =>
  (reply.body?.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? '');

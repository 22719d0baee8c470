import type { GrantRole } from '../../domain/access/grantRole.ts';
import { widenedByGrant } from '../../domain/access/projectStanding.ts';
import { authorize } from '../../domain/access/authorize.ts';
import type { Principal } from '../../domain/access/principal.ts';
import type { GrpcAuthResult } from '../../ingest/grpcServer.ts';
import type { Authenticator } from './createAuthenticator.ts';
import { unauthenticated } from './unauthenticated.ts';

/**
 * The gRPC receiver's check of the `authorization` metadata: the same credentials and the same
 * `ingest` permission as `POST /v1/traces`, answered UNAUTHENTICATED (401) or PERMISSION_DENIED (403).
 */
export const grpcAuthenticate =
  (authenticator: Authenticator, grantsOf: (principal: Principal) => Promise<readonly GrantRole[]>) =>
  async (request: { readonly authorization: string | null }): Promise<GrpcAuthResult<Principal | null>> => {
    const { principal, problem } = await authenticator.fromAuthorization(request.authorization);
    const decision = authorize(principal, 'ingest');
    if (decision.allowed) return { ok: true, principal };
    // A global viewer with a MEMBER grant: on to the sink, which checks each project (as over HTTP).
    if (principal !== null && decision.status === 403 && widenedByGrant(principal, 'ingest', await grantsOf(principal)))
      return { ok: true, principal };
    if (decision.status === 401) return { ok: false, code: 'UNAUTHENTICATED', message: unauthenticated(problem).message };
    return { ok: false, code: 'PERMISSION_DENIED', message: decision.message };
  };

import type { SecretListing } from '../../projections/secrets/secretQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { Secret } from './types/secretTypes.ts';

/** Secret keys are identifiers (`[A-Za-z_][A-Za-z0-9_]*`), so they fit inside a global id as they are. */
export const secretOf = (s: SecretListing): Secret =>
  Object.assign(new Secret(), {
    id: toGlobalId('Secret', s.key),
    ownerUserId: s.owner?.userId ?? null,
    key: s.key,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  });

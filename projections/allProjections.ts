import { apiKeysProjection } from './apiKeys/apiKeysProjection.ts';
import { secretsProjection } from './secrets/secretsProjection.ts';
import { usersProjection } from './users/usersProjection.ts';
import type { Projection } from './projection.ts';
import { tracingProjection } from './tracing/tracingProjection.ts';

/** Every read model the server keeps, in the order their migrations apply. */
export const allProjections = (): Projection[] => [
  usersProjection,
  apiKeysProjection,
  secretsProjection,
  tracingProjection,
];

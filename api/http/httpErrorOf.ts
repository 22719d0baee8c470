import { DomainError, type DomainErrorKind } from '../../domain/errors.ts';
import { HttpError } from './httpError.ts';

/** THE map from a broken domain rule to an HTTP status: the route kit and the error middleware both answer with it. */
const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  invalid: 400,
  conflict: 409,
  not_found: 404,
  forbidden: 403,
  unauthenticated: 401,
  locked: 429,
};

/** A `DomainError` as the edge answers it (same code and message); anything else unchanged. */
export const httpErrorOf = (error: unknown): unknown =>
  error instanceof DomainError ? new HttpError(STATUS_BY_KIND[error.kind], error.code, error.message) : error;

/**
 * For a domain rule that checks one field of the request: its `invalid` refusal is a 422 naming
 * where (`body.name: ...`), as Phoenix's validation answers. Other errors pass unchanged.
 */
export const refusedAt = (where: string, error: unknown): unknown =>
  error instanceof DomainError && error.kind === 'invalid' ? new HttpError(422, error.code, `${where}${error.message}`) : error;

/**
 * A broken business rule. `code` is stable (clients match on it); `kind` tells the edge which
 * family of status to answer with without the domain knowing HTTP.
 */
export type DomainErrorKind = 'invalid' | 'conflict' | 'not_found' | 'forbidden' | 'unauthenticated' | 'locked';

export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: DomainErrorKind = 'invalid',
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

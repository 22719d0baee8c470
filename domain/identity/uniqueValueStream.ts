import { createHash } from 'node:crypto';
import { normaliseEmail } from './email.ts';
import type { UniqueKind } from './uniqueValueDecider.ts';
import { usernameKey } from './username.ts';

/** The form under which a value is unique: emails trimmed+lower-cased, usernames case-folded, external keys as built. */
export const normaliseUniqueValue = (kind: UniqueKind, value: string): string =>
  kind === 'email' ? normaliseEmail(value) : kind === 'username' ? usernameKey(value) : value;

/**
 * `username-<sha256>` / `email-<sha256>` / `external-<sha256>` of the normalised value: a fixed-length name whatever the
 * value holds (spaces, `-`, unicode), and no address in stream names, which are listed and logged
 * more freely than event bodies.
 */
export const uniqueValueStream = (kind: UniqueKind, value: string): string =>
  `${kind}-${createHash('sha256').update(normaliseUniqueValue(kind, value)).digest('hex')}`;

import { createHash } from 'node:crypto';
import type { SecretKeyring } from '../domain/secrets/crypto.ts';
import { createKeyring } from '../domain/secrets/crypto.ts';

/** Without SERVICE_SECRET (auth off) values are still sealed, under a key anyone could derive, as in the reference. */
const NO_SECRET_KEY_ID = 'none';

/** A short, one-way name for a secret, so each sealed value says which SERVICE_SECRET opens it. */
const keyIdOf = (secret: string): string => `s-${createHash('sha256').update(`loupe secret key id\0${secret}`).digest('hex').slice(0, 12)}`;

/**
 * The keys secrets are sealed with: new values under the key derived from SERVICE_SECRET; values
 * written before a SERVICE_SECRET was set stay readable. A value sealed under a SERVICE_SECRET
 * that has since changed names a key id that is no longer in the ring and fails loudly.
 */
export const secretKeyring = (secret: string | null): SecretKeyring =>
  secret === null
    ? createKeyring([{ keyId: NO_SECRET_KEY_ID, secret: '' }])
    : createKeyring([
        { keyId: keyIdOf(secret), secret },
        { keyId: NO_SECRET_KEY_ID, secret: '' },
      ]);

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { DomainError } from '../errors.ts';
import type { EncryptedValue } from '../base/encryptedValue.ts';

export type { EncryptedValue };

/**
 * The keys secrets are sealed with, each derived from a server secret (`SERVICE_SECRET`) and a key
 * id. New values use `currentKeyId`; older values name their key id and stay readable as long as
 * their entry is in the ring. Rotating = add a new entry (new id, or a new secret under a new id),
 * make it current, keep the old one until every value has been written again.
 */
export type SecretKeyring = { readonly currentKeyId: string; readonly keys: ReadonlyMap<string, Buffer> };

// Fixed, public: HKDF's salt only separates this use of SERVICE_SECRET from its others (JWT signing).
const SALT = 'loupe/secrets/v1';

export const deriveSecretKey = (secret: string, keyId: string): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, `loupe secrets key ${keyId}`, 32));

export const createKeyring = (
  entries: readonly { readonly keyId: string; readonly secret: string }[],
  currentKeyId = entries[0]?.keyId,
): SecretKeyring => {
  const keys = new Map<string, Buffer>();
  for (const { keyId, secret } of entries) {
    if (keyId === '') throw new Error('secret key id must not be empty');
    if (keys.has(keyId)) throw new Error(`secret key id "${keyId}" given twice`);
    keys.set(keyId, deriveSecretKey(secret, keyId));
  }
  if (currentKeyId === undefined || !keys.has(currentKeyId))
    throw new Error(`current secret key id "${currentKeyId}" is not in the keyring`);
  return { currentKeyId, keys };
};

/**
 * Seal `plaintext` under the current key. `context` (the secret's key name) is authenticated but
 * not stored: a ciphertext moved to another key name no longer opens.
 */
export const encryptSecret = (keyring: SecretKeyring, plaintext: string, context: string): EncryptedValue => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.keys.get(keyring.currentKeyId)!, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    keyId: keyring.currentKeyId,
    iv: iv.toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
  };
};

/** Throws `secret_undecryptable` for an unknown key id or anything tampered with. */
export const decryptSecret = (keyring: SecretKeyring, value: EncryptedValue, context: string): string => {
  const key = keyring.keys.get(value.keyId);
  if (key === undefined) throw new DomainError('secret_undecryptable', `No key "${value.keyId}" to decrypt this secret`, 'invalid');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(value.iv, 'base64'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(value.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(value.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new DomainError('secret_undecryptable', 'Secret could not be decrypted', 'invalid');
  }
};

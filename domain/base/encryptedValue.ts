/** AES-256-GCM output, base64. `keyId` names the key it was sealed with, so keys can rotate. */
export type EncryptedValue = { readonly keyId: string; readonly iv: string; readonly ciphertext: string; readonly tag: string };

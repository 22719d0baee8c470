import { jwtVerify, SignJWT } from 'jose';

/** The reference's token kinds; the kind travels in the `jti` claim (`AccessToken:<id>`). */
export type TokenKind = 'AccessToken' | 'RefreshToken' | 'PasswordResetToken';

const KINDS: readonly TokenKind[] = ['AccessToken', 'RefreshToken', 'PasswordResetToken'];

export type TokenCodec = {
  readonly sign: (kind: TokenKind, id: string) => Promise<string>;
  /** The kind and id of a token we signed, or null for anything else (bad signature, garbage, foreign kind). */
  readonly read: (token: string) => Promise<{ readonly kind: TokenKind; readonly id: string } | null>;
};

/**
 * HS256 JWTs keyed with SERVICE_SECRET whose payload is only `{"jti": "<Kind>:<id>"}`: no expiry,
 * subject or role, which all come from the event-derived state, so revocation and role changes
 * apply to tokens already issued.
 */
export const createTokenCodec = (secret: string): TokenCodec => {
  const key = new TextEncoder().encode(secret);
  return {
    sign: (kind, id) => new SignJWT({ jti: `${kind}:${id}` }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key),
    read: async (token) => {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        const match = typeof payload.jti === 'string' ? /^([A-Za-z]+):([A-Za-z0-9-]{1,64})$/.exec(payload.jti) : null;
        const kind = KINDS.find((k) => k === match?.[1]);
        return kind === undefined || match === null ? null : { kind, id: match[2]! };
      } catch {
        return null;
      }
    },
  };
};

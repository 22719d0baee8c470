import argon2 from 'argon2';

/** argon2id cost. Production uses the library defaults; tests pass a tiny cost to stay fast. */
export type PasswordCost = { readonly memoryCost: number; readonly timeCost: number; readonly parallelism: number };

export const DEFAULT_PASSWORD_COST: PasswordCost = { memoryCost: 65536, timeCost: 3, parallelism: 4 };

export type PasswordHasher = {
  /** An argon2id PHC string (`$argon2id$v=19$m=...`): salt and parameters included. */
  readonly hash: (password: string) => Promise<string>;
  /** False for a wrong password and for anything that is not a valid hash. */
  readonly verify: (passwordHash: string, password: string) => Promise<boolean>;
  /**
   * Spends the time of one verification and answers false: used when there is no user or no
   * password, so response time does not reveal which emails exist.
   */
  readonly verifyNothing: (password: string) => Promise<false>;
};

export const createPasswordHasher = (cost: PasswordCost = DEFAULT_PASSWORD_COST): PasswordHasher => {
  const hash = (password: string) => argon2.hash(password, { type: argon2.argon2id, ...cost });
  const verify = async (passwordHash: string, password: string) => {
    try {
      return await argon2.verify(passwordHash, password);
    } catch {
      return false;
    }
  };
  let dummy: Promise<string> | null = null;
  return {
    hash,
    verify,
    verifyNothing: async (password) => {
      dummy ??= hash('loupe-no-such-user');
      await verify(await dummy, password);
      return false;
    },
  };
};

/** The part of ops/config.ts's reader the section modules use (passed in, so they do not import config.ts back). */
export type ConfigReader = {
  problem(variable: string, rule: string): void;
  /** Trimmed; undefined when unset or empty. */
  raw(name: string): string | undefined;
  boolean(name: string, fallback: boolean): boolean;
};

export const quoteValue = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);

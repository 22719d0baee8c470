/** The playground's slice of the configuration (ops/config.ts reads it from the environment). */
export type PlaygroundSettings = {
  /** A provider call that sends nothing for this long (before or between chunks) is cut off and reported as a timeout. */
  readonly timeoutSeconds: number;
  /** Provider keys from the server's environment by name (`OPENAI_API_KEY`); stored secrets win over them. */
  readonly environmentKeys: Readonly<Record<string, string>>;
  /**
   * `SERVICE_PLAYGROUND_ALLOWED_BASE_URLS`: the only base URLs the playground may call, when not
   * empty; empty refuses link-local and cloud metadata addresses only (baseUrlRule.ts).
   */
  readonly allowedBaseUrls: readonly string[];
};

export const DEFAULT_PLAYGROUND_SETTINGS: PlaygroundSettings = { timeoutSeconds: 60, environmentKeys: {}, allowedBaseUrls: [] };

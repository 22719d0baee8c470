/** How model providers are called (ops/config.ts reads it from the environment: `SERVICE_PLAYGROUND_*`, provider keys and base URLs). */
export type ModelProviderSettings = {
  /** A provider call that sends nothing for this long (before or between chunks) is cut off and reported as a timeout. */
  readonly timeoutSeconds: number;
  /** Provider keys from the server's environment by name (`OPENAI_API_KEY`); stored secrets win over them. */
  readonly environmentKeys: Readonly<Record<string, string>>;
  /**
   * Base URLs an operator bound providers to by name (`OLLAMA_BASE_URL`, `OPENAI_BASE_URL`, the
   * variables the SDKs read), canonical; a stored secret of that name wins. A stored key is sent
   * only there (or to the provider's own endpoint when none is set) unless an admin runs the call.
   */
  readonly environmentBaseUrls: Readonly<Record<string, string>>;
  /**
   * `SERVICE_PLAYGROUND_ALLOWED_BASE_URLS`: the only base URLs the playground may call, when not
   * empty; empty refuses link-local and cloud metadata addresses only (domain/playground/playgroundUrlRule.ts).
   */
  readonly allowedBaseUrls: readonly string[];
};

export const DEFAULT_MODEL_PROVIDER_SETTINGS: ModelProviderSettings = {
  timeoutSeconds: 60,
  environmentKeys: {},
  environmentBaseUrls: {},
  allowedBaseUrls: [],
};

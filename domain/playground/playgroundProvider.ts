import { MODEL_PROVIDERS, OPENAI_FAMILY } from '../prompts/promptVersion.ts';

/** How the playground reaches a provider: which official SDK, and where it is unless a base URL says otherwise. */
export type PlaygroundProvider = {
  readonly name: string;
  readonly sdk: 'openai' | 'anthropic';
  /** OpenInference `llm.provider`. */
  readonly otelName: string;
  /** The secret (or environment variable) holding its key unless the request names another. */
  readonly defaultKeyName: string;
  /**
   * The provider's own public endpoint (canonical, as canonicalBaseUrl.ts writes it), where its
   * stored key goes unless an admin configured another; null for OpenAI-compatible servers.
   */
  readonly ownBaseUrl: string | null;
};

const OWN_BASE_URLS: Readonly<Record<string, string>> = {
  OPENAI: 'https://api.openai.com/v1/',
  ANTHROPIC: 'https://api.anthropic.com/',
};

// Azure needs deployment routing the plain OpenAI client does not do: not offered until it is built.
const OPENAI_COMPATIBLE = OPENAI_FAMILY.filter((p) => p !== 'openai' && p !== 'azure_openai').map((p) => p.toUpperCase());

export const PLAYGROUND_PROVIDERS: readonly string[] = ['OPENAI', 'ANTHROPIC', ...OPENAI_COMPATIBLE];

/**
 * The provider by its prompt name (`OPENAI`, `ANTHROPIC`, or an OpenAI-compatible one such as
 * `OLLAMA`, which is called with the OpenAI SDK at the given base URL), or what is wrong.
 */
export const playgroundProvider = (raw: string): PlaygroundProvider | { readonly problem: string } => {
  const name = raw.trim().toUpperCase();
  if (!PLAYGROUND_PROVIDERS.includes(name)) {
    const known = (MODEL_PROVIDERS as readonly string[]).includes(name);
    return {
      problem: `${JSON.stringify(raw)} is ${known ? 'not supported by the playground yet' : 'not a model provider'}: use one of ${PLAYGROUND_PROVIDERS.join(', ')}`,
    };
  }
  return {
    name,
    sdk: name === 'ANTHROPIC' ? 'anthropic' : 'openai',
    otelName: name.toLowerCase(),
    defaultKeyName: `${name}_API_KEY`,
    ownBaseUrl: OWN_BASE_URLS[name] ?? null,
  };
};

import type { Logger } from 'pino';
import {
  type ModelAnswer,
  type ModelCallOptions,
  type ModelClient,
  type ModelEndpoint,
  ModelRefusal,
  type ModelRequest,
  type ModelTarget,
  type TokenUsage,
  type ToolCall,
} from '../../domain/modelCalls/modelCall.ts';
import { canonicalBaseUrl } from '../../domain/base/outboundUrl.ts';
import { chooseCredential } from '../../domain/playground/playgroundCredential.ts';
import { playgroundProvider } from '../../domain/playground/playgroundProvider.ts';
import { playgroundUrlRule } from '../../domain/playground/playgroundUrlRule.ts';
import { decryptSecret, type EncryptedValue, type SecretKeyring } from '../../domain/secrets/crypto.ts';
import { cleanSecretKey } from '../../domain/secrets/secretKey.ts';
import { DEFAULT_MODEL_PROVIDER_SETTINGS, type ModelProviderSettings } from './modelProviderSettings.ts';
import { checkOutboundUrl } from './outboundUrlRule.ts';
import { providerFailure, providerStream } from './providerStream.ts';

export type ModelClientDeps = {
  readonly settings?: ModelProviderSettings;
  /** The sealed values of the named stored secrets (the secrets read model); decrypted here, on the server only. */
  readonly sealedSecrets: (names: readonly string[]) => Promise<ReadonlyMap<string, EncryptedValue>>;
  readonly keyring: SecretKeyring;
  /** The debug log: what the SDKs say and what a failing destination answered (with the key redacted). */
  readonly logger: Pick<Logger, 'debug'>;
};

const redacted = (text: string, key: string | null): string =>
  key !== null && key.length >= 4 ? text.replaceAll(key, '[redacted]') : text;

/**
 * The model port's adapter (domain/modelCalls/modelCall.ts): OpenAI, Anthropic and
 * OpenAI-compatible servers through their official SDKs (providerStream.ts), with the credential
 * rules of docs/playground.md, the outbound URL rule (outboundUrlRule.ts) and no redirects
 * followed (providerFetch.ts). Built once by the composition root; the playground and any reactor
 * hold it as a `ModelClient`.
 */
export const createModelClient = (deps: ModelClientDeps): ModelClient => {
  const settings = deps.settings ?? DEFAULT_MODEL_PROVIDER_SETTINGS;
  const timeoutMs = settings.timeoutSeconds * 1000;

  /** A stored secret (decrypted here), else the server's environment, else undefined. */
  const storedOrEnvironment = (
    sealed: ReadonlyMap<string, EncryptedValue>,
    name: string,
    environment: Readonly<Record<string, string>>,
  ): string | undefined => {
    const stored = sealed.get(name);
    if (stored !== undefined) return decryptSecret(deps.keyring, stored, name);
    const fromEnvironment = environment[name];
    return fromEnvironment !== undefined && fromEnvironment !== '' ? fromEnvironment : undefined;
  };

  /**
   * Everything checked before calling, each problem a refusal naming its field: the provider,
   * which key goes where (playgroundCredential.ts), whether that base URL may be called, the key.
   */
  const endpoint = async (target: ModelTarget): Promise<ModelEndpoint> => {
    const provider = playgroundProvider(target.provider);
    if ('problem' in provider) throw new ModelRefusal('invalid', 'unknown_provider', `body.provider: ${provider.problem}`);
    const requested = target.baseUrl === null ? null : canonicalBaseUrl(target.baseUrl);
    if (target.baseUrl !== null && requested === null)
      throw new ModelRefusal(
        'invalid',
        'invalid_base_url',
        'body.base_url: must be an http:// or https:// URL without a user name or password',
      );
    let secretName: string | undefined;
    try {
      secretName = target.apiKeySecret === undefined ? undefined : cleanSecretKey(target.apiKeySecret);
    } catch (e) {
      throw new ModelRefusal('invalid', 'invalid_secret_key', `body.api_key_secret: ${e instanceof Error ? e.message : String(e)}`);
    }
    const boundName = `${provider.name}_BASE_URL`;
    const keyName = secretName ?? provider.defaultKeyName;
    const sealed = await deps.sealedSecrets([boundName, keyName]);
    const bound = storedOrEnvironment(sealed, boundName, settings.environmentBaseUrls);
    const boundBaseUrl = bound === undefined ? null : canonicalBaseUrl(bound);
    if (bound !== undefined && boundBaseUrl === null)
      throw new ModelRefusal(
        'invalid',
        'invalid_bound_base_url',
        `${boundName} (the ${provider.name} base URL an admin configured) is not an http:// or https:// URL`,
      );
    const choice = chooseCredential({
      provider,
      baseUrl: requested,
      apiKeySecret: secretName,
      apiKey: target.apiKey,
      boundBaseUrl,
      mayRouteSecrets: target.mayRouteSecrets,
    });
    if ('refused' in choice)
      throw new ModelRefusal(choice.refused.status === 403 ? 'forbidden' : 'invalid', choice.refused.code, choice.refused.message);
    // The provider's own public endpoint is where its key belongs; every other destination is checked.
    if (choice.destination !== provider.ownBaseUrl) {
      const where = requested === null ? boundName : 'body.base_url';
      const refusal = await checkOutboundUrl(choice.destination, playgroundUrlRule(settings.allowedBaseUrls), where);
      if (refusal !== null) throw new ModelRefusal('forbidden', 'base_url_not_allowed', refusal.message);
    }
    const credential = choice.credential;
    if (credential.kind !== 'stored')
      return { provider, baseUrl: choice.destination, apiKey: credential.kind === 'own' ? credential.key : null };
    const apiKey = storedOrEnvironment(sealed, credential.name, settings.environmentKeys);
    if (apiKey === undefined && !credential.orNone)
      throw new ModelRefusal(
        'invalid',
        'missing_secret',
        `No API key for ${provider.name}: store a secret named ${credential.name} (PUT /v1/secrets) or set ${credential.name} in the server's environment`,
      );
    return { provider, baseUrl: choice.destination, apiKey: apiKey ?? null };
  };

  const call = async (to: ModelEndpoint, request: ModelRequest, options: ModelCallOptions): Promise<ModelAnswer> => {
    const abort = new AbortController();
    let timedOut = false;
    // An idle timeout, not a deadline: a long answer that keeps streaming is not cut off.
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const cancel = () => abort.abort();
    if (options.cancelled.aborted) abort.abort();
    else options.cancelled.addEventListener('abort', cancel, { once: true });
    const logContext = { ...options.logContext, provider: to.provider.name };
    const startMs = Date.now();
    let text = '';
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let usage: TokenUsage | null = null;
    let finishReason: string | null = null;
    let error: string | null = null;
    try {
      for await (const event of providerStream({
        sdk: to.provider.sdk,
        apiKey: to.apiKey,
        baseUrl: to.baseUrl,
        model: request.model,
        messages: request.messages,
        invocationParameters: request.parameters,
        tools: request.tools,
        timeoutMs,
        signal: abort.signal,
        debug: (message) => deps.logger.debug({ ...logContext, sdk: redacted(message, to.apiKey).slice(0, 2000) }, 'model provider SDK'),
      })) {
        timer.refresh();
        if (event.type === 'delta') text += event.text;
        else if (event.type === 'tool_call_delta') {
          const toolCall = calls.get(event.index) ?? { id: '', name: '', arguments: '' };
          if (event.id) toolCall.id = event.id;
          if (event.name) toolCall.name += event.name;
          toolCall.arguments += event.arguments;
          calls.set(event.index, toolCall);
        } else if (event.type === 'usage') usage = event.usage;
        else finishReason = event.reason;
        options.onDelta?.(event);
      }
      // The SDKs end a stream quietly when it is aborted: a cut-off answer must not look complete.
      if (abort.signal.aborted) throw new Error('aborted');
    } catch (e) {
      if (abort.signal.aborted && !timedOut) error = 'the client closed the connection';
      else {
        const failure = providerFailure(to.provider.name, e, { timeoutMs, timedOut, keySent: to.apiKey !== null });
        error = failure.message;
        // What the destination answered stays in the debug log (a provider may echo the key: never that).
        if (failure.upstream !== null)
          deps.logger.debug(
            { ...logContext, upstream: redacted(failure.upstream, to.apiKey).slice(0, 2000) },
            'model provider call failed',
          );
      }
    } finally {
      clearTimeout(timer);
      options.cancelled.removeEventListener('abort', cancel);
    }
    const endMs = Math.max(Date.now(), startMs);
    const toolCalls: ToolCall[] = [...calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    return { text, toolCalls, usage, finishReason, error, startMs, endMs };
  };

  return { endpoint, call };
};

import type { Attributes } from '../tracing/attributes.ts';
import { tokenCount } from '../tracing/tokenCount.ts';

/**
 * An LLM call's tokens as OpenInference reports them: `prompt` and `completion` are totals, the
 * details are parts of them (cache reads and writes and audio of the prompt, audio of the
 * completion; reasoning tokens are billed as completion and need no part of their own).
 */
export type TokenUsage = {
  readonly prompt: number;
  readonly completion: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly audioPrompt: number;
  readonly audioCompletion: number;
};

export const tokenUsage = (attributes: Attributes): TokenUsage => ({
  prompt: tokenCount(attributes, 'llm.token_count.prompt'),
  completion: tokenCount(attributes, 'llm.token_count.completion'),
  cacheRead: tokenCount(attributes, 'llm.token_count.prompt_details.cache_read'),
  cacheWrite: tokenCount(attributes, 'llm.token_count.prompt_details.cache_write'),
  audioPrompt: tokenCount(attributes, 'llm.token_count.prompt_details.audio'),
  audioCompletion: tokenCount(attributes, 'llm.token_count.completion_details.audio'),
});

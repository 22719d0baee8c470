import type { JsonObject } from '../base/jsonValue.ts';

export type ActivePrompt = {
  readonly status: 'active';
  readonly promptId: string;
  readonly name: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  /** Version uuids, in the order they were added. */
  readonly versions: readonly string[];
  /** Tag name → the version it points at. */
  readonly tags: ReadonlyMap<string, { readonly versionId: string; readonly description: string | null }>;
  readonly labelIds: readonly number[];
};

export type PromptState =
  | { readonly status: 'absent' }
  | ActivePrompt
  | { readonly status: 'deleted'; readonly promptId: string; readonly name: string };

import type { DomainEvent } from '../decider.ts';
import type { JsonObject, JsonValue } from '../base/jsonValue.ts';
import type { TemplateFormat } from '../base/templateFormat.ts';

export const MODEL_PROVIDERS = [
  'OPENAI',
  'AZURE_OPENAI',
  'ANTHROPIC',
  'GOOGLE',
  'DEEPSEEK',
  'XAI',
  'OLLAMA',
  'AWS',
  'CEREBRAS',
  'FIREWORKS',
  'GROQ',
  'MOONSHOT',
  'PERPLEXITY',
  'TOGETHER',
] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

export const TEMPLATE_TYPES = ['CHAT', 'STR'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export { TEMPLATE_FORMATS, type TemplateFormat } from '../base/templateFormat.ts';

export const MESSAGE_ROLES = ['user', 'assistant', 'model', 'ai', 'tool', 'system', 'developer'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly tool_call_id: string;
      readonly tool_call: { readonly type: 'function'; readonly name: string; readonly arguments: string };
    }
  | { readonly type: 'tool_result'; readonly tool_call_id: string; readonly tool_result: JsonValue };

export type PromptMessage = { readonly role: MessageRole; readonly content: string | readonly ContentPart[] };

/** The wire shape (snake_case inside), kept as sent: clients read it back key for key. */
export type PromptTemplate =
  | { readonly type: 'chat'; readonly messages: readonly PromptMessage[] }
  | { readonly type: 'string'; readonly template: string };

/**
 * One version of a prompt: what to send to which model. Invocation parameters, tools and the
 * response format are provider payloads in the reference's wire shape
 * (`{"type": "openai", "openai": {...}}`), kept as JSON documents.
 */
export type PromptVersionData = {
  readonly description: string | null;
  readonly modelProvider: ModelProvider;
  readonly modelName: string;
  readonly templateType: TemplateType;
  readonly templateFormat: TemplateFormat;
  readonly template: PromptTemplate;
  readonly invocationParameters: JsonObject;
  readonly tools: JsonObject | null;
  readonly responseFormat: JsonObject | null;
};

/**
 * Events of one prompt's stream (`prompt-<hash of name>`, see promptStream.ts). Every event carries
 * `promptId`, the incarnation's uuid: a name can be deleted and created again, and the new prompt
 * must not inherit the old one's versions, tags or labels. Versions are named by their own uuid;
 * the integer ids of the wire (`PromptVersion:7`) are the read model's, handed out in log order.
 */
export type PromptCreated = DomainEvent<
  'PromptCreated',
  {
    readonly promptId: string;
    readonly name: string;
    readonly description: string | null;
    readonly metadata: JsonObject;
    /** The prompt this one was cloned from (its incarnation uuid), if any. */
    readonly sourcePromptId: string | null;
  }
>;

/** Versions are immutable: a change is a new version. */
export type PromptVersionAdded = DomainEvent<
  'PromptVersionAdded',
  { readonly promptId: string; readonly versionId: string; readonly version: PromptVersionData }
>;

/** A tag names one version of its prompt; setting a tag that exists moves it to this version. */
export type PromptTagSet = DomainEvent<
  'PromptTagSet',
  { readonly promptId: string; readonly name: string; readonly versionId: string; readonly description: string | null }
>;

export type PromptTagRemoved = DomainEvent<'PromptTagRemoved', { readonly promptId: string; readonly name: string }>;

/** Only the fields that changed are present; metadata is replaced as a whole. */
export type PromptUpdated = DomainEvent<
  'PromptUpdated',
  { readonly promptId: string; readonly description?: string | null; readonly metadata?: JsonObject }
>;

/** The whole set of labels the prompt carries now (label ids of the `prompt-labels` stream). */
export type PromptLabelsSet = DomainEvent<'PromptLabelsSet', { readonly promptId: string; readonly labelIds: readonly number[] }>;

/** The read model removes its versions, tags and label links with it. */
export type PromptDeleted = DomainEvent<'PromptDeleted', { readonly promptId: string; readonly name: string }>;

export type PromptEvent =
  | PromptCreated
  | PromptVersionAdded
  | PromptTagSet
  | PromptTagRemoved
  | PromptUpdated
  | PromptLabelsSet
  | PromptDeleted;

/** Labels: one stream for all of them (names are unique across labels; there are few). */
export type PromptLabelData = { readonly name: string; readonly color: string | null; readonly description: string | null };

export type PromptLabelCreated = DomainEvent<'PromptLabelCreated', { readonly labelId: number; readonly label: PromptLabelData }>;
/** A full replacement. */
export type PromptLabelUpdated = DomainEvent<'PromptLabelUpdated', { readonly labelId: number; readonly label: PromptLabelData }>;
/** The read model unlinks it from every prompt. */
export type PromptLabelDeleted = DomainEvent<'PromptLabelDeleted', { readonly labelId: number }>;

export type PromptLabelEvent = PromptLabelCreated | PromptLabelUpdated | PromptLabelDeleted;

import type { JsonObject } from '../base/jsonValue.ts';
import type { PromptLabelData } from './events.ts';
import type { PromptVersionData } from './promptVersion.ts';

/**
 * Adds a version to the prompt of this name, creating the prompt first when there is none (the
 * reference's `POST /v1/prompts`: an existing prompt's description and metadata stay as they are).
 * `promptId` and `versionId` are fresh uuids chosen by the caller; `promptId` is used only when
 * the prompt is created.
 */
export type AddPromptVersion = {
  readonly type: 'AddPromptVersion';
  readonly name: string;
  readonly promptId: string;
  readonly description: string | null;
  readonly metadata: JsonObject;
  readonly sourcePromptId: string | null;
  readonly versionId: string;
  readonly version: PromptVersionData;
};

/** `promptId` names the incarnation the caller looked at: a deleted or re-created prompt is "not found". */
export type UpdatePrompt = {
  readonly type: 'UpdatePrompt';
  readonly promptId: string;
  readonly description?: string | null;
  readonly metadata?: JsonObject;
};
export type SetPromptTag = {
  readonly type: 'SetPromptTag';
  readonly promptId: string;
  readonly versionId: string;
  readonly name: string;
  readonly description: string | null;
};
export type RemovePromptTag = { readonly type: 'RemovePromptTag'; readonly promptId: string; readonly name: string };
/** The labels were checked to exist by the caller (they live on the labels stream). */
export type SetPromptLabels = { readonly type: 'SetPromptLabels'; readonly promptId: string; readonly labelIds: readonly number[] };
export type DeletePrompt = { readonly type: 'DeletePrompt'; readonly promptId: string };

export type PromptCommand = AddPromptVersion | UpdatePrompt | SetPromptTag | RemovePromptTag | SetPromptLabels | DeletePrompt;

export type CreatePromptLabel = { readonly type: 'CreatePromptLabel'; readonly label: PromptLabelData };
export type UpdatePromptLabel = { readonly type: 'UpdatePromptLabel'; readonly labelId: number; readonly label: PromptLabelData };
export type DeletePromptLabel = { readonly type: 'DeletePromptLabel'; readonly labelId: number };

export type PromptLabelCommand = CreatePromptLabel | UpdatePromptLabel | DeletePromptLabel;

import { gql } from '../api/graphql.ts';
import type { WireMessage } from './messageParts.ts';
import { http } from '../api/http.ts';

export type PromptLabel = { readonly id: string; readonly name: string; readonly color: string | null };
export type PromptTag = { readonly id: string; readonly name: string; readonly promptVersionId?: string };

export type ChatTemplateMessage = { readonly role: string; readonly content: string | readonly Record<string, unknown>[] };
export type PromptTemplate =
  | { readonly type: 'chat'; readonly messages: readonly ChatTemplateMessage[] }
  | { readonly type: 'string'; readonly template: string };

export type PromptVersion = {
  readonly id: string;
  readonly description: string | null;
  readonly createdAt: string;
  readonly sequenceNumber: number;
  readonly modelProvider: string;
  readonly modelName: string;
  /** As REST answers it: `{"type": "openai", "openai": {...}}`. */
  readonly invocationParameters: Record<string, unknown>;
  readonly template: PromptTemplate;
  readonly templateFormat: string;
  readonly templateType: string;
  readonly templateVariables: readonly string[];
  readonly tools: Record<string, unknown> | null;
  readonly responseFormat: Record<string, unknown> | null;
  readonly tags: readonly PromptTag[];
};

export type PromptListItem = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly labels: readonly PromptLabel[];
  readonly versionCount: number;
  readonly updatedAt: string;
  readonly latest: { readonly createdAt: string } | null;
};

export type PromptDetail = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly metadata: Record<string, unknown>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly labels: readonly PromptLabel[];
  readonly versions: readonly PromptVersion[];
};

const LIST = `
  query PromptsPage($nameContains: String, $labelIds: [ID!]) {
    prompts(first: 100, nameContains: $nameContains, labelIds: $labelIds) {
      edges { node { id name description updatedAt versionCount labels { id name color } latest: version { createdAt } } }
      pageInfo { hasNextPage }
    }
    promptLabels { id name color }
  }`;

type ListReply = {
  prompts: { edges: { node: PromptListItem }[]; pageInfo: { hasNextPage: boolean } };
  promptLabels: PromptLabel[];
};

/** The first 100 prompts matching the search (newest first), whether there are more, and every label. */
export const fetchPrompts = async (filter: { nameContains: string; labelId: string | null }, signal?: AbortSignal) => {
  const reply = await gql<ListReply>(
    LIST,
    { nameContains: filter.nameContains.trim() || null, labelIds: filter.labelId ? [filter.labelId] : null },
    signal,
  );
  return {
    prompts: reply.prompts.edges.map((edge) => edge.node),
    more: reply.prompts.pageInfo.hasNextPage,
    labels: reply.promptLabels,
  };
};

const DETAIL = `
  query PromptPage($name: String!) {
    getPromptByName(name: $name) {
      id name description metadata createdAt updatedAt
      labels { id name color }
      promptVersions(first: 100) {
        edges { node {
          id description createdAt sequenceNumber modelProvider modelName invocationParameters
          template templateFormat templateType templateVariables tools responseFormat
          tags { id name }
        } }
      }
    }
  }`;

type DetailReply = {
  getPromptByName: (Omit<PromptDetail, 'versions'> & { promptVersions: { edges: { node: PromptVersion }[] } }) | null;
};

/** A prompt with its (last 100) versions, newest first; null when there is no prompt of that name. */
export const fetchPrompt = async (name: string, signal?: AbortSignal): Promise<PromptDetail | null> => {
  const reply = await gql<DetailReply>(DETAIL, { name }, signal);
  const prompt = reply.getPromptByName;
  if (prompt === null) return null;
  const { promptVersions, ...rest } = prompt;
  return { ...rest, versions: promptVersions.edges.map((edge) => edge.node) };
};

/** What the version form produces: the reference's `PromptVersionData` (REST takes CHAT templates only). */
export type VersionInput = {
  readonly description: string | null;
  readonly modelProvider: string;
  readonly modelName: string;
  readonly templateFormat: string;
  readonly messages: readonly WireMessage[];
  /** The provider's own parameters, e.g. `{"temperature": 0.2}`; wrapped under the provider's key here. */
  readonly parameters: Record<string, unknown>;
  readonly tools: Record<string, unknown> | null;
  readonly responseFormat: Record<string, unknown> | null;
};

const versionBody = (input: VersionInput) => {
  const type = input.modelProvider.toLowerCase();
  return {
    description: input.description,
    model_provider: input.modelProvider,
    model_name: input.modelName,
    template: { type: 'chat', messages: input.messages },
    template_type: 'CHAT',
    template_format: input.templateFormat,
    invocation_parameters: { type, [type]: input.parameters },
    ...(input.tools !== null ? { tools: input.tools } : {}),
    ...(input.responseFormat !== null ? { response_format: input.responseFormat } : {}),
  };
};

/**
 * Writes go through the REST API. Posting to an existing name adds a version to it (the prompt's
 * description is sent as it is, so it is kept).
 */
export const savePromptVersion = (prompt: { name: string; description: string | null }, input: VersionInput) =>
  http<{ data: { id: string } }>('/v1/prompts', {
    method: 'POST',
    json: { prompt: { name: prompt.name, description: prompt.description }, version: versionBody(input) },
  });

/** Sets the tag on the version; a tag already on another version of the prompt moves here. */
export const setTag = (versionId: string, name: string, description: string | null) =>
  http(`/v1/prompt_versions/${encodeURIComponent(versionId)}/tags`, { method: 'POST', json: { name, description } });

export const removeTag = (versionId: string, name: string) =>
  http(`/v1/prompt_versions/${encodeURIComponent(versionId)}/tags/${encodeURIComponent(name)}`, { method: 'DELETE' });

export const updatePrompt = (name: string, change: { description?: string | null; metadata?: Record<string, unknown> }) =>
  http(`/v1/prompts/${encodeURIComponent(name)}`, { method: 'PATCH', json: change });

export const deletePrompt = (name: string) => http(`/v1/prompts/${encodeURIComponent(name)}`, { method: 'DELETE' });

/** Every prompt label, by name (the vocabulary labels are picked from). */
export const fetchLabels = async (signal?: AbortSignal): Promise<PromptLabel[]> =>
  (await gql<{ promptLabels: PromptLabel[] }>('query PromptLabels { promptLabels { id name color } }', {}, signal)).promptLabels;

/** Creates a label in the vocabulary; the server names a name or colour it refuses. */
export const createLabel = async (name: string, color: string): Promise<PromptLabel> =>
  (
    await gql<{ createPromptLabel: { promptLabels: PromptLabel[] } }>(
      'mutation CreatePromptLabel($input: CreatePromptLabelInput!) { createPromptLabel(input: $input) { promptLabels { id name color } } }',
      { input: { name, color } },
    )
  ).createPromptLabel.promptLabels[0]!;

/** Adds labels to (`set`) or takes them off (`unset`) a prompt; the others it carries stay. */
export const changeLabels = async (action: 'set' | 'unset', promptId: string, labelIds: readonly string[]): Promise<void> => {
  const field = action === 'set' ? 'setPromptLabels' : 'unsetPromptLabels';
  const input = action === 'set' ? 'SetPromptLabelsInput' : 'UnsetPromptLabelsInput';
  await gql(`mutation ChangePromptLabels($input: ${input}!) { ${field}(input: $input) { prompt { id } } }`, {
    input: { promptId, promptLabelIds: labelIds },
  });
};

import { promptVersionVariables, type PromptVersionData } from '../../domain/prompts/promptVersion.ts';
import type { PromptLabelRow, PromptRow, PromptTagRow, PromptVersionRow } from '../../projections/prompts/promptQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { Prompt, PromptLabel, PromptVersion, PromptVersionTag } from './types/promptTypes.ts';

/** The same GlobalIDs REST answers with. */
export const promptOf = (row: PromptRow): Prompt =>
  Object.assign(new Prompt(), {
    id: toGlobalId('Prompt', String(row.id)),
    rowid: row.id,
    promptUuid: row.prompt_id,
    name: row.name,
    description: row.description,
    metadata: (row.metadata ?? {}) as Record<string, unknown>,
    sourcePromptId: row.source_id !== null ? toGlobalId('Prompt', String(row.source_id)) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

export const promptVersionOf = (row: PromptVersionRow): PromptVersion =>
  Object.assign(new PromptVersion(), {
    id: toGlobalId('PromptVersion', String(row.id)),
    rowid: row.id,
    versionId: row.version_id,
    promptUuid: row.prompt_id,
    promptId: toGlobalId('Prompt', String(row.prompt_rowid)),
    description: row.description,
    templateType: row.template_type,
    templateFormat: row.template_format,
    template: row.template,
    templateVariables: promptVersionVariables({
      template: row.template as PromptVersionData['template'],
      templateFormat: row.template_format as PromptVersionData['templateFormat'],
    }),
    invocationParameters: row.invocation_parameters,
    tools: row.tools,
    responseFormat: row.response_format,
    modelName: row.model_name,
    modelProvider: row.model_provider,
    createdAt: row.created_at,
  });

export const promptTagOf = (row: PromptTagRow): PromptVersionTag =>
  Object.assign(new PromptVersionTag(), {
    id: toGlobalId('PromptVersionTag', String(row.id)),
    promptVersionId: toGlobalId('PromptVersion', String(row.version_rowid)),
    name: row.name,
    description: row.description,
  });

export const promptLabelOf = (row: PromptLabelRow): PromptLabel =>
  Object.assign(new PromptLabel(), {
    id: toGlobalId('PromptLabel', String(row.id)),
    rowid: row.id,
    name: row.name,
    description: row.description,
    color: row.color,
  });

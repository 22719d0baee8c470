import { storableJson, storableMetadata } from '../base/storableJson.ts';
import type { JsonObject } from '../base/jsonValue.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../base/storableText.ts';
import {
  MODEL_PROVIDERS,
  TEMPLATE_FORMATS,
  type ModelProvider,
  type PromptTemplate,
  type PromptVersionData,
  type TemplateFormat,
} from './promptVersion.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectOrNull = (v: unknown): JsonObject | null => (isRecord(v) ? (storableJson(v) as JsonObject) : null);

/** Free text as the read model holds it: storable, at most MESSAGE_MAX_BYTES. */
export const storableDescription = (v: unknown): string | null => (typeof v === 'string' ? clippedText(v, MESSAGE_MAX_BYTES) : null);

/** Names sit in unique indexes: storable and at most NAME_MAX_BYTES. */
export const storablePromptName = (v: unknown): string => storableName(typeof v === 'string' ? v : '');

export { storableMetadata as storablePromptMetadata };

const storableTemplate = (v: unknown): PromptTemplate => {
  const json = storableJson(v);
  if (isRecord(json) && json.type === 'chat' && Array.isArray(json.messages)) return json as unknown as PromptTemplate;
  if (isRecord(json) && json.type === 'string' && typeof json.template === 'string') return json as unknown as PromptTemplate;
  return { type: 'string', template: '' };
};

/**
 * Any stored version (also one crafted into the log) as the read model can hold it and the API
 * can answer with: every string storable, every field of a known kind. The decider refuses what
 * does not fit, so for a decided version this changes nothing. Deterministic and idempotent.
 */
export const storablePromptVersion = (raw: unknown): PromptVersionData => {
  const r = isRecord(raw) ? raw : {};
  const template = storableTemplate(r.template);
  const parameters = objectOrNull(r.invocationParameters);
  return {
    description: storableDescription(r.description),
    modelProvider: MODEL_PROVIDERS.includes(r.modelProvider as ModelProvider) ? (r.modelProvider as ModelProvider) : 'OPENAI',
    modelName: typeof r.modelName === 'string' ? clippedText(r.modelName, MESSAGE_MAX_BYTES) : '',
    templateType: template.type === 'chat' ? 'CHAT' : 'STR',
    templateFormat: TEMPLATE_FORMATS.includes(r.templateFormat as TemplateFormat) ? (r.templateFormat as TemplateFormat) : 'NONE',
    template,
    invocationParameters: parameters !== null && typeof parameters.type === 'string' ? parameters : { type: 'openai', openai: {} },
    tools: objectOrNull(r.tools),
    responseFormat: objectOrNull(r.responseFormat),
  };
};

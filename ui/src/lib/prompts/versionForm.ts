import { type EditableMessage, fromWireMessages, toWireMessages } from './messageParts.ts';
import type { PromptVersion, VersionInput } from './promptsApi.ts';

/** The providers the server knows (REST's `model_provider`). */
export const PROVIDERS = [
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
export const TEMPLATE_FORMATS = ['MUSTACHE', 'F_STRING', 'NONE'] as const;
export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

/** What the form edits: text fields, JSON still as text (checked on save). */
export type VersionForm = {
  description: string;
  modelProvider: string;
  modelName: string;
  templateFormat: string;
  /** A tool message names the call it answers; an assistant message may carry tool calls (JSON). */
  messages: EditableMessage[];
  parameters: string;
  tools: string;
  responseFormat: string;
};

export const emptyForm = (): VersionForm => ({
  description: '',
  modelProvider: 'OPENAI',
  modelName: 'gpt-4o-mini',
  templateFormat: 'MUSTACHE',
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: '{{question}}' },
  ],
  parameters: '{\n  "temperature": 0.7\n}',
  tools: '',
  responseFormat: '',
});

const pretty = (value: unknown): string => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2));

/** A version as the starting point of the next one: texts, tool calls and tool results each in their field. */
export const formFromVersion = (version: PromptVersion): VersionForm => {
  const provider = version.invocationParameters.type;
  const parameters = typeof provider === 'string' ? version.invocationParameters[provider] : {};
  return {
    description: '',
    modelProvider: version.modelProvider,
    modelName: version.modelName,
    templateFormat: version.templateFormat,
    messages:
      version.template.type === 'chat'
        ? fromWireMessages(version.template.messages)
        : [{ role: 'user', content: version.template.template }],
    parameters: pretty(parameters ?? {}),
    tools: pretty(version.tools),
    responseFormat: pretty(version.responseFormat),
  };
};

const parseObject = (text: string, field: string, optional: boolean): Record<string, unknown> | null => {
  if (text.trim() === '') {
    if (optional) return null;
    return {};
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${field}: not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${field}: must be a JSON object`);
  return value as Record<string, unknown>;
};

/** The form as the server's input; throws an Error naming the field when JSON does not parse. */
export const inputFromForm = (form: VersionForm): VersionInput => {
  if (form.modelName.trim() === '') throw new Error('Model name: required');
  if (form.messages.length === 0) throw new Error('Messages: add at least one');
  const wire = toWireMessages(form.messages);
  if ('problem' in wire) throw new Error(wire.problem);
  return {
    description: form.description.trim() === '' ? null : form.description.trim(),
    modelProvider: form.modelProvider,
    modelName: form.modelName.trim(),
    templateFormat: form.templateFormat,
    messages: wire.messages,
    parameters: parseObject(form.parameters, 'Invocation parameters', false) ?? {},
    tools: parseObject(form.tools, 'Tools', true),
    responseFormat: parseObject(form.responseFormat, 'Response format', true),
  };
};

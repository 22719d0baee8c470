import { z } from 'zod';
import { identifierProblem } from '../../../domain/prompts/promptName.ts';
import {
  MESSAGE_ROLES,
  MODEL_PROVIDERS,
  TEMPLATE_FORMATS,
  TEMPLATE_TYPES,
  type PromptVersionData,
} from '../../../domain/prompts/promptVersion.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import type { PromptVersionRow } from '../../../projections/prompts/promptQueries.ts';
import { toGlobalId } from '../../http/globalId.ts';

/** The reference's `Identifier`, with the rule named in the 422. */
export const identifier = z.string().superRefine((value, refinement) => {
  const problem = identifierProblem(value);
  if (problem !== null) refinement.addIssue({ code: 'custom', message: problem });
});

const object = z.record(z.string(), z.unknown());
const int = z.number().int();
const strings = z.array(z.string());
const oneOf = (values: readonly string[]) => ({ error: `must be one of ${values.map((v) => `"${v}"`).join(', ')}` });

const textPart = z.strictObject({ type: z.literal('text'), text: z.string() });
const toolCallPart = z.strictObject({
  type: z.literal('tool_call'),
  tool_call_id: z.string(),
  tool_call: z.strictObject({ type: z.literal('function'), name: z.string(), arguments: z.string() }),
});
const toolResultPart = z.strictObject({ type: z.literal('tool_result'), tool_call_id: z.string(), tool_result: z.unknown() });
const contentPart = z.discriminatedUnion('type', [textPart, toolCallPart, toolResultPart], oneOf(['text', 'tool_call', 'tool_result']));
const message = z.strictObject({
  role: z.enum(MESSAGE_ROLES, oneOf(MESSAGE_ROLES)),
  content: z.union([z.string(), z.array(contentPart).min(1)]),
});
const template = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('chat'), messages: z.array(message) }),
    z.strictObject({ type: z.literal('string'), template: z.string() }),
  ],
  oneOf(['chat', 'string']),
);

const REASONING = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
const openaiContent = z.strictObject({
  temperature: z.number().optional(),
  max_tokens: int.optional(),
  max_completion_tokens: int.optional(),
  frequency_penalty: z.number().optional(),
  presence_penalty: z.number().optional(),
  top_p: z.number().optional(),
  seed: int.optional(),
  stop: strings.optional(),
  reasoning_effort: z.enum(REASONING, oneOf(REASONING)).optional(),
  extra_body: object.optional(),
});
const DISPLAY = ['summarized', 'omitted'] as const;
const anthropicContent = z.strictObject({
  max_tokens: int,
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  stop_sequences: strings.optional(),
  output_config: z.strictObject({ effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional() }).optional(),
  thinking: z
    .discriminatedUnion(
      'type',
      [
        z.strictObject({ type: z.literal('disabled') }),
        z.strictObject({ type: z.literal('enabled'), budget_tokens: int.min(1024), display: z.enum(DISPLAY).optional() }),
        z.strictObject({ type: z.literal('adaptive'), display: z.enum(DISPLAY).optional() }),
      ],
      oneOf(['disabled', 'enabled', 'adaptive']),
    )
    .optional(),
  extra_body: object.optional(),
});
const googleContent = z.strictObject({
  temperature: z.number().optional(),
  max_output_tokens: int.optional(),
  stop_sequences: strings.optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  top_p: z.number().optional(),
  top_k: int.optional(),
  thinking_config: z
    .strictObject({
      thinking_budget: int.optional(),
      thinking_level: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
      include_thoughts: z.boolean().optional(),
    })
    .optional(),
});
const awsContent = z.strictObject({
  max_tokens: int.optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  stop_sequences: strings.optional(),
});

const parameters = <T extends string, C extends z.ZodType>(type: T, content: C) =>
  z.strictObject({ type: z.literal(type), [type]: content } as { type: z.ZodLiteral<T> } & Record<T, C>);
const PARAMETER_TYPES = [
  'openai',
  'azure_openai',
  'anthropic',
  'google',
  'deepseek',
  'xai',
  'ollama',
  'aws',
  'cerebras',
  'fireworks',
  'groq',
  'moonshot',
  'perplexity',
  'together',
] as const;
const invocationParameters = z.discriminatedUnion(
  'type',
  [
    parameters('openai', openaiContent),
    parameters('azure_openai', openaiContent),
    parameters('anthropic', anthropicContent),
    parameters('google', googleContent),
    parameters('deepseek', openaiContent),
    parameters('xai', openaiContent),
    parameters('ollama', openaiContent),
    parameters('aws', awsContent),
    parameters('cerebras', openaiContent),
    parameters('fireworks', openaiContent),
    parameters('groq', openaiContent),
    parameters('moonshot', openaiContent),
    parameters('perplexity', openaiContent),
    parameters('together', openaiContent),
  ],
  oneOf(PARAMETER_TYPES),
);

const tools = z.strictObject({
  type: z.literal('tools'),
  tools: z
    .array(
      z.discriminatedUnion(
        'type',
        [
          z.strictObject({
            type: z.literal('function'),
            function: z.strictObject({
              name: z.string(),
              description: z.string().optional(),
              parameters: object.optional(),
              strict: z.boolean().optional(),
            }),
          }),
          z.strictObject({ type: z.literal('raw'), raw: object }),
        ],
        oneOf(['function', 'raw']),
      ),
    )
    .min(1),
  tool_choice: z
    .discriminatedUnion(
      'type',
      [
        z.strictObject({ type: z.literal('none') }),
        z.strictObject({ type: z.literal('zero_or_more') }),
        z.strictObject({ type: z.literal('one_or_more') }),
        z.strictObject({ type: z.literal('specific_function'), function_name: z.string() }),
      ],
      oneOf(['none', 'zero_or_more', 'one_or_more', 'specific_function']),
    )
    .optional(),
  disable_parallel_tool_calls: z.boolean().optional(),
});

const responseFormat = z.strictObject({
  type: z.literal('json_schema'),
  json_schema: z.strictObject({
    name: z.string(),
    description: z.string().optional(),
    schema: object.optional(),
    strict: z.boolean().optional(),
  }),
});

/**
 * `PromptVersionData` of the reference: unknown keys are ignored at the top and refused in every
 * nested model (422 naming the key), as the reference's models do.
 */
export const promptVersionBody = z.object({
  description: z.string().nullish(),
  model_provider: z.enum(MODEL_PROVIDERS, { error: `unknown model provider; one of ${MODEL_PROVIDERS.join(', ')}` }),
  model_name: z.string(),
  template,
  template_type: z.enum(TEMPLATE_TYPES, oneOf(TEMPLATE_TYPES)),
  template_format: z.enum(TEMPLATE_FORMATS, oneOf(TEMPLATE_FORMATS)),
  invocation_parameters: invocationParameters,
  tools: tools.nullish(),
  response_format: responseFormat.nullish(),
});

export const versionFromJson = (b: z.infer<typeof promptVersionBody>): PromptVersionData => ({
  description: b.description ?? null,
  modelProvider: b.model_provider,
  modelName: b.model_name,
  templateType: b.template_type,
  templateFormat: b.template_format,
  template: b.template as PromptVersionData['template'],
  invocationParameters: b.invocation_parameters as JsonObject,
  tools: (b.tools ?? null) as JsonObject | null,
  responseFormat: (b.response_format ?? null) as JsonObject | null,
});

export const promptVersionGlobalId = (rowid: number): string => toGlobalId('PromptVersion', String(rowid));

/**
 * The reference answers versions with unset and default fields left out: `tools` and
 * `response_format` only when present, `description` "" when there is none.
 */
/** `promptVersionJson`'s shape (the template, parameters, tools and response format are the prompt's own JSON). */
export const promptVersionSchema = z.object({
  description: z.string(),
  model_provider: z.string(),
  model_name: z.string(),
  template: z.unknown(),
  template_type: z.string(),
  template_format: z.string(),
  invocation_parameters: z.unknown(),
  tools: z.unknown().optional(),
  response_format: z.unknown().optional(),
  id: z.string(),
});

export const promptVersionJson = (row: PromptVersionRow) => ({
  description: row.description ?? '',
  model_provider: row.model_provider,
  model_name: row.model_name,
  template: row.template,
  template_type: row.template_type,
  template_format: row.template_format,
  invocation_parameters: row.invocation_parameters,
  ...(row.tools !== null ? { tools: row.tools } : {}),
  ...(row.response_format !== null ? { response_format: row.response_format } : {}),
  id: promptVersionGlobalId(row.id),
});

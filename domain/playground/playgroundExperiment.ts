import type { JsonValue } from '../base/jsonValue.ts';
import type { ToolCall } from './playgroundSpan.ts';
import type { Variables } from '../base/renderTemplate.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A dotted path into an example's input (`question.text`); a key with dots in it is tried whole first. */
const at = (input: unknown, path: string): { found: boolean; value: unknown } => {
  if (isRecord(input) && Object.hasOwn(input, path)) return { found: true, value: input[path] };
  let value: unknown = input;
  for (const part of path.split('.')) {
    if (!isRecord(value) || !Object.hasOwn(value, part)) return { found: false, value: undefined };
    value = value[part];
  }
  return { found: true, value };
};

/**
 * The template variables for one example: a mapped variable from its path in the input, an
 * unmapped one from the input key of its own name, else the value typed in the playground. A
 * variable none of these has stays missing, so rendering names it. A variable mapped to null always
 * takes the typed value.
 */
export const exampleVariables = (
  input: unknown,
  mapping: Readonly<Record<string, string | null>>,
  used: readonly string[],
  defaults: Variables,
): Record<string, unknown> => {
  const variables: Record<string, unknown> = { ...defaults };
  for (const name of used) {
    const source = mapping[name];
    if (source === null) continue;
    const found = at(input, source ?? name);
    if (found.found) variables[name] = found.value;
    else if (source !== undefined) delete variables[name];
  }
  return variables;
};

/** A run's output: the answer's text, or the text with the tool calls when the model called tools. */
export const playgroundOutput = (text: string, toolCalls: readonly ToolCall[]): JsonValue =>
  toolCalls.length === 0 ? text : { content: text, tool_calls: toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) };

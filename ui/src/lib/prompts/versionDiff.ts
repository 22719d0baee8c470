import { diffLines } from 'diff';
import type { PromptVersion } from './promptsApi.ts';

export type DiffLine = { readonly kind: 'added' | 'removed' | 'same'; readonly text: string };

/**
 * A version as text for comparing: the template's messages first (their content as written, so a
 * changed word shows as a changed line, not as a changed JSON string), then the model settings as
 * pretty-printed JSON with stable key order.
 */
export const versionText = (version: PromptVersion): string => {
  const lines: string[] = [];
  if (version.template.type === 'chat') {
    for (const message of version.template.messages) {
      lines.push(`--- ${message.role} ---`);
      lines.push(typeof message.content === 'string' ? message.content : JSON.stringify(message.content, null, 2));
    }
  } else {
    lines.push('--- template ---', version.template.template);
  }
  lines.push('--- settings ---');
  const settings = {
    model_provider: version.modelProvider,
    model_name: version.modelName,
    template_format: version.templateFormat,
    invocation_parameters: version.invocationParameters,
    tools: version.tools,
    response_format: version.responseFormat,
  };
  lines.push(JSON.stringify(sortKeys(settings), null, 2));
  return `${lines.join('\n')}\n`;
};

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, sortKeys(v)]),
    );
  return value;
};

/** Line by line, from `before` to `after`. */
export const diffVersions = (before: PromptVersion, after: PromptVersion): DiffLine[] =>
  diffLines(versionText(before), versionText(after)).flatMap((change) =>
    change.value
      .replace(/\n$/, '')
      .split('\n')
      .map((text) => ({ kind: change.added ? 'added' : change.removed ? 'removed' : 'same', text }) as const),
  );

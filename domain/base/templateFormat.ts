/** How a chat template names its variables: `{{x}}` (Mustache), `{x}` (Python's str.format), or not at all. Prompts, the playground and LLM evaluators share it. */
export const TEMPLATE_FORMATS = ['MUSTACHE', 'F_STRING', 'NONE'] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

/** How to fetch a prompt from code, with the reference clients (TypeScript and Python). */
export type SnippetTarget = {
  readonly baseUrl: string;
  readonly name: string;
  readonly tag: string | null;
  readonly versionId: string | null;
  /** With auth on the clients need an API key (read from the environment, never written here). */
  readonly authEnabled: boolean;
};

export const typescriptSnippet = (t: SnippetTarget): string => {
  const client = t.authEnabled
    ? `const client = createClient({\n  options: {\n    baseUrl: ${JSON.stringify(t.baseUrl)},\n    headers: { Authorization: \`Bearer \${process.env.PHOENIX_API_KEY}\` },\n  },\n});`
    : `const client = createClient({ options: { baseUrl: ${JSON.stringify(t.baseUrl)} } });`;
  const lines = [
    `import { createClient } from "@arizeai/phoenix-client";`,
    `import { getPrompt, toSDK } from "@arizeai/phoenix-client/prompts";`,
    '',
    client,
    '',
    '// The latest version',
    `const prompt = await getPrompt({ client, prompt: { name: ${JSON.stringify(t.name)} } });`,
  ];
  if (t.tag !== null)
    lines.push(
      '// The version a tag points at',
      `const tagged = await getPrompt({ client, prompt: { name: ${JSON.stringify(t.name)}, tag: ${JSON.stringify(t.tag)} } });`,
    );
  if (t.versionId !== null)
    lines.push(
      '// One version, by id',
      `const pinned = await getPrompt({ client, prompt: { versionId: ${JSON.stringify(t.versionId)} } });`,
    );
  lines.push(
    '',
    '// Ready for the OpenAI SDK, with the template variables filled',
    'const params = toSDK({ sdk: "openai", prompt: prompt!, variables: {} });',
  );
  return lines.join('\n');
};

export const pythonSnippet = (t: SnippetTarget): string => {
  const lines = [
    'from phoenix.client import Client',
    '',
    t.authEnabled
      ? `client = Client(base_url=${JSON.stringify(t.baseUrl)}, api_key=os.environ["PHOENIX_API_KEY"])`
      : `client = Client(base_url=${JSON.stringify(t.baseUrl)})`,
    '',
    '# The latest version',
    `prompt = client.prompts.get(prompt_identifier=${JSON.stringify(t.name)})`,
  ];
  if (t.authEnabled) lines.unshift('import os');
  if (t.tag !== null)
    lines.push(
      '# The version a tag points at',
      `tagged = client.prompts.get(prompt_identifier=${JSON.stringify(t.name)}, tag=${JSON.stringify(t.tag)})`,
    );
  if (t.versionId !== null)
    lines.push('# One version, by id', `pinned = client.prompts.get(prompt_version_id=${JSON.stringify(t.versionId)})`);
  lines.push('', '# Ready for the OpenAI SDK, with the template variables filled', 'params = prompt.format(variables={})');
  return lines.join('\n');
};

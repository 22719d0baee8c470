import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { type OpenAi, startOpenAi } from '../peers/openAi.ts';
import { callAs, createUser } from '../support/authClient.ts';
import { launchBrowser, openPage, screenshotLeftOpen } from './support/browser.ts';
import { signIn, unexpectedProblems } from './support/flows.ts';
import { screenshot } from './support/screenshots.ts';
import { startUiServer, type UiServer } from './support/uiServer.ts';
import { exportSpans, hexId, type OtlpSpan } from './tracingFixtures.ts';

/**
 * The playground with authentication on, against a local OpenAI-compatible server: a member opens
 * a traced LLM call in the playground, changes its temperature, watches the answer stream in with
 * the key stored as a secret, and saves the edited prompt as a new version; a viewer may look but
 * not run.
 */

type Ctx = { server: UiServer; browser: Browser; provider: OpenAi; spanId: string };
const test = suite<Ctx>('playground, auth on', {} as Ctx);

const KEY = 'sk-e2e-playground-7d1f';
const PROMPT = 'support-answer';
const AGENT = 'weather-agent';

const llmSpan = (): OtlpSpan => ({
  traceId: hexId(16),
  spanId: hexId(8),
  name: 'ChatCompletion',
  kind: 'LLM',
  startMs: Date.now() - 60_000,
  durationMs: 900,
  status: 'OK',
  attributes: {
    'llm.model_name': 'gpt-4o-mini',
    'llm.provider': 'openai',
    'llm.invocation_parameters': JSON.stringify({ temperature: 0.7, max_tokens: 256, top_p: 0.9 }),
    'llm.input_messages.0.message.role': 'system',
    'llm.input_messages.0.message.content': 'You answer questions about Loupe. <b>Be brief.</b>',
    'llm.input_messages.1.message.role': 'user',
    'llm.input_messages.1.message.content': 'How do I reset my password?',
    // A tool call and its result as many instrumentations record them: no call id, no tool_call_id
    'llm.input_messages.2.message.role': 'assistant',
    'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'search_docs',
    'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': '{"q":"reset password"}',
    'llm.input_messages.3.message.role': 'tool',
    'llm.input_messages.3.message.content': 'Sign-in page: "Forgot password" link.',
    'llm.input_messages.4.message.role': 'user',
    'llm.input_messages.4.message.content': 'Where is that link?',
    'llm.output_messages.0.message.role': 'assistant',
    'llm.output_messages.0.message.content': 'Use "Forgot password" on the sign-in page.',
  },
});

test.before(async (ctx) => {
  ctx.provider = await startOpenAi();
  ctx.server = await startUiServer({ auth: true });
  ctx.browser = await launchBrowser();
  const admin = { bearer: ctx.server.adminSecret! };
  await createUser(ctx.server, admin, { email: 'mia@example.com', username: 'mia', role: 'MEMBER', password: 'mia-initial-pw-1' });
  await createUser(ctx.server, admin, { email: 'vic@example.com', username: 'vic', role: 'VIEWER', password: 'vic-initial-pw-1' });
  // The admin binds OpenAI (and so its key) to the local server: a member's run sends the key only there.
  const stored = await callAs(ctx.server, 'PUT', '/v1/secrets', {
    as: admin,
    json: {
      secrets: [
        { key: 'OPENAI_API_KEY', value: KEY },
        { key: 'OPENAI_BASE_URL', value: ctx.provider.baseUrl },
      ],
    },
  });
  assert.is(stored.status, 200);
  // An existing prompt the run is saved to as its second version.
  const created = await callAs(ctx.server, 'POST', '/v1/prompts', {
    as: admin,
    json: {
      prompt: { name: PROMPT, description: 'Answers support questions' },
      version: {
        model_provider: 'OPENAI',
        model_name: 'gpt-4o-mini',
        template: { type: 'chat', messages: [{ role: 'user', content: '{{question}}' }] },
        template_type: 'CHAT',
        template_format: 'MUSTACHE',
        invocation_parameters: { type: 'openai', openai: {} },
      },
    },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  // A prompt whose conversation holds a tool call and its result, opened in the playground from its page.
  const agent = await callAs(ctx.server, 'POST', '/v1/prompts', {
    as: admin,
    json: {
      prompt: { name: AGENT },
      version: {
        model_provider: 'OPENAI',
        model_name: 'gpt-4o-mini',
        template: {
          type: 'chat',
          messages: [
            { role: 'user', content: 'Weather in {{city}}?' },
            {
              role: 'assistant',
              content: [
                {
                  type: 'tool_call',
                  tool_call_id: 'call_9',
                  tool_call: { type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}' },
                },
              ],
            },
            { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'call_9', tool_result: '21 degrees' }] },
          ],
        },
        template_type: 'CHAT',
        template_format: 'MUSTACHE',
        invocation_parameters: { type: 'openai', openai: { temperature: 0.4 } },
        tools: { type: 'tools', tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] },
      },
    },
  });
  assert.is(agent.status, 200, JSON.stringify(agent.body));
  const span = llmSpan();
  ctx.spanId = span.spanId;
  await exportSpans(ctx.server, 'support-bot', [span], { authorization: `Bearer ${ctx.server.adminSecret}` });
});

test.after.each(() => screenshotLeftOpen('playground'));

test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.server?.close();
  await ctx.provider?.close();
});

test('a member opens an LLM span in the playground, runs it streamed and saves it as a new version', async (ctx) => {
  const { server, browser, provider } = ctx;
  const { page, context, problems } = await openPage(browser, { viewport: { width: 1440, height: 1000 } });
  await signIn(page, server, 'mia@example.com', 'mia-initial-pw-1', 'mia-own-password-1');

  // Given the LLM span in its trace
  await page.goto(server.href(`/redirects/spans/${ctx.spanId}`));
  await page.getByTestId('span-name').filter({ hasText: 'ChatCompletion' }).waitFor();

  await screenshot(page, 'playground-open-from-span');
  // When it is opened in the playground
  await page.getByRole('button', { name: 'Open in playground' }).click();
  await page.waitForURL(/\/playground$/);
  await page.getByRole('heading', { name: 'Playground' }).waitFor();

  // Then its messages, model and parameters are loaded
  assert.is(await page.getByLabel('Content of message 1').inputValue(), 'You answer questions about Loupe. <b>Be brief.</b>');
  assert.is(await page.getByLabel('Content of message 2').inputValue(), 'How do I reset my password?');
  assert.is(await page.getByLabel('Role of message 1').inputValue(), 'system');
  assert.is(await page.getByLabel('Model').inputValue(), 'gpt-4o-mini');
  assert.is(await page.getByLabel('Temperature').inputValue(), '0.7');
  assert.is(await page.getByLabel('Max tokens').inputValue(), '256');
  assert.equal(JSON.parse(await page.getByLabel('Other parameters (JSON)').inputValue()), { top_p: 0.9 });
  // ...and the tool's result answers the call before it, so it runs as loaded
  const [toolCall] = JSON.parse(await page.getByLabel('Tool calls of message 3').inputValue());
  assert.match(toolCall.id, /^call_/);
  assert.is(await page.getByLabel('Tool call id of message 4').inputValue(), toolCall.id);

  // When the temperature is changed and it runs against the local OpenAI-compatible server
  await page.getByLabel('Temperature').fill('0.2');
  await page.getByLabel('Model').fill('gated');
  await page.getByLabel(/^Base URL/).fill(provider.baseUrl);
  await page.getByRole('button', { name: 'Run', exact: true }).click();

  // Then the first token shows while the answer is still streaming
  const output = page.getByTestId('run-output');
  await output.filter({ hasText: /^\s*Hello\s*$/ }).waitFor();
  await page.getByText('streaming…').waitFor();
  assert.is((await output.textContent())?.trim(), 'Hello', 'the rest of the answer has not arrived yet');
  // ...beside the prompt, level with Run, not below the five messages
  const run = (await page.getByRole('button', { name: 'Stop', exact: true }).boundingBox())!;
  const answer = (await output.boundingBox())!;
  const firstMessage = (await page.getByLabel('Content of message 1').boundingBox())!;
  assert.ok(
    answer.x > firstMessage.x + firstMessage.width,
    `the output is right of the messages (${answer.x} > ${firstMessage.x + firstMessage.width})`,
  );
  assert.ok(answer.y - run.y < 250, `the output is near Run (${answer.y - run.y} px below it)`);
  await screenshot(page, 'playground-streaming');
  provider.openGate();
  await page.getByTestId('run-trace-link').waitFor();
  assert.is((await output.textContent())?.trim(), 'Hello brave world');

  // And the provider got the key from the secret, the new temperature and the span's messages
  const sent = provider.received.at(-1)!;
  assert.is(sent.authorization, `Bearer ${KEY}`);
  assert.is(sent.body.temperature, 0.2);
  assert.is(sent.body.max_tokens, 256);
  assert.is(sent.body.top_p, 0.9);
  assert.equal(
    sent.body.messages.map((m: { role: string }) => m.role),
    ['system', 'user', 'assistant', 'tool', 'user'],
  );
  assert.is(sent.body.messages[3].tool_call_id, sent.body.messages[2].tool_calls[0].id);
  await screenshot(page, 'playground-done');

  // When it is saved as a new version of the existing prompt
  await page.getByRole('button', { name: 'Save as version' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Prompt', { exact: true }).selectOption(PROMPT);
  await screenshot(page, 'playground-save-dialog');
  await dialog.getByRole('button', { name: 'Save version' }).click();
  await page.getByText(`Saved as a new version of ${PROMPT}`).waitFor();

  // Then the prompt has a second version with the edited settings
  const versions = await callAs(server, 'GET', `/v1/prompts/${PROMPT}/latest`, { as: { bearer: server.adminSecret! } });
  assert.is(versions.status, 200);
  const latest = (versions.body as { data: Record<string, any> }).data; // eslint-disable-line @typescript-eslint/no-explicit-any
  assert.is(latest.model_name, 'gated');
  assert.equal(latest.invocation_parameters, { type: 'openai', openai: { top_p: 0.9, temperature: 0.2, max_tokens: 256 } });
  assert.is(latest.template.messages[0].content, 'You answer questions about Loupe. <b>Be brief.</b>');
  const all = await callAs(server, 'GET', `/v1/prompts/${PROMPT}/versions`, { as: { bearer: server.adminSecret! } });
  assert.is((all.body as { data: unknown[] }).data.length, 2);

  // And the run's trace opens from the link, in the playground project
  await page.getByTestId('run-trace-link').click();
  await page.waitForURL(/\/projects\/[^/]+\/traces\/[0-9a-f]{32}/);
  await page.getByTestId('span-details').waitFor();

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a provider refusal is shown as a message, and markup in the answer stays text', async ({ server, browser, provider }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'mia@example.com', 'mia-own-password-1');
  await page.getByRole('link', { name: 'Playground', exact: true }).click();
  await page.getByRole('heading', { name: 'Playground' }).waitFor();
  await page.getByLabel('Variable question').fill('Hi');
  await page.getByLabel(/^Base URL/).fill(provider.baseUrl);
  await page.getByLabel('Model').fill('limited');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  assert.match((await alert.textContent()) ?? '', /429/);
  await screenshot(page, 'playground-error');

  // And a second variant side by side with a tool, run together with the first, answers on its own with a tool call
  await page.getByRole('button', { name: 'Add variant' }).click();
  const b = page.getByRole('region', { name: 'Variant B' });
  await b.getByLabel('Model').fill('tools');
  await b
    .getByLabel('Tools (JSON array, optional)')
    .fill(JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }]));
  await page.getByRole('button', { name: 'Run all' }).click();
  await b.getByTestId('run-trace-link').waitFor();
  const call = b.getByTestId('run-tool-calls');
  assert.match((await call.textContent()) ?? '', /get_weather\s*\{"city":"Paris"\}/);
  assert.is(provider.received.find((r) => r.body.model === 'tools')?.body.tools[0].function.name, 'get_weather');
  const a = page.getByRole('region', { name: 'Variant A' });
  await a.getByRole('alert').waitFor();
  assert.match((await a.getByRole('alert').textContent()) ?? '', /429/);
  await screenshot(page, 'playground-variants');
  await b.getByRole('button', { name: 'Remove Variant B' }).click();

  // A template the server cannot parse is refused before any call, naming the message
  await page.getByLabel('Content of message 2').fill('{{#open}} never closed');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('alert').filter({ hasText: 'messages.1' }).waitFor();
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a member opens a stored version with a tool call in the playground, runs it and saves it back to its prompt', async ({
  server,
  browser,
  provider,
}) => {
  const { page, context, problems } = await openPage(browser, { viewport: { width: 1440, height: 1100 } });
  await signIn(page, server, 'mia@example.com', 'mia-own-password-1');
  await page.goto(server.href(`/prompts/${AGENT}`));
  await page.getByTestId('version-details').waitFor();
  assert.match(
    (await page.getByTestId('prompt-chat').textContent()) ?? '',
    /→ get_weather\(\{"city":"Paris"\}\)\s+\[call_9\].*↩ result of call_9: 21 degrees/s,
  );
  await screenshot(page, 'prompt-version-tool-call');
  await page.getByRole('button', { name: 'Open in playground' }).click();
  await page.waitForURL(/\/playground$/);
  await page
    .getByTestId('opened-from-version')
    .filter({ hasText: `${AGENT}, version 1` })
    .waitFor();

  // Then the conversation is loaded with its tool call and the tool's answer to it, and the settings
  assert.is(await page.getByLabel('Role of message 2').inputValue(), 'assistant');
  assert.equal(JSON.parse(await page.getByLabel('Tool calls of message 2').inputValue()), [
    { id: 'call_9', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ]);
  assert.is(await page.getByLabel('Role of message 3').inputValue(), 'tool');
  assert.is(await page.getByLabel('Tool call id of message 3').inputValue(), 'call_9');
  assert.is(await page.getByLabel('Result of message 3').inputValue(), '21 degrees');
  assert.is(await page.getByLabel('Temperature').inputValue(), '0.4');
  assert.match(await page.getByLabel('Tools (JSON array, optional)').inputValue(), /get_weather/);

  // When a follow-up question is added and it runs against the local server
  await page.getByRole('button', { name: 'Add message' }).click();
  await page.getByLabel('Content of message 4').fill('Is that warm for {{city}}?');
  await page.getByLabel('Variable city').fill('Paris');
  await page.getByLabel(/^Base URL/).fill(provider.baseUrl);
  await page.getByLabel('Model').fill('words');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByTestId('run-trace-link').waitFor();
  await screenshot(page, 'playground-tool-messages');

  // Then the provider got the tool call and the result naming it
  const sent = provider.received.at(-1)!.body;
  assert.equal(sent.messages[1].tool_calls[0].id, 'call_9');
  assert.equal(sent.messages[2], { role: 'tool', tool_call_id: 'call_9', content: '21 degrees' });
  assert.is(sent.messages[3].content, 'Is that warm for Paris?');

  // And saving offers the prompt it came from, keeping the tool parts
  await page.getByRole('button', { name: 'Save as version' }).click();
  const dialog = page.getByRole('dialog');
  assert.is(await dialog.getByLabel('Prompt', { exact: true }).inputValue(), AGENT);
  await dialog.getByRole('button', { name: 'Save version' }).click();
  await page.getByText(`Saved as a new version of ${AGENT}`).waitFor();
  const latest = await callAs(server, 'GET', `/v1/prompts/${AGENT}/latest`, { as: { bearer: server.adminSecret! } });
  const messages = latest.body.data.template.messages;
  assert.is(messages.length, 4);
  assert.equal(messages[2], { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'call_9', tool_result: '21 degrees' }] });
  assert.is(messages[1].content[0].type, 'tool_call');

  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test('a viewer may look at the playground but not run it', async ({ server, browser }) => {
  const { page, context, problems } = await openPage(browser);
  await signIn(page, server, 'vic@example.com', 'vic-initial-pw-1', 'vic-own-password-1');
  await page.getByRole('link', { name: 'Playground', exact: true }).click();
  await page.getByText('only admins and members can run them').waitFor();
  assert.is(await page.getByRole('button', { name: 'Run', exact: true }).count(), 0);
  assert.is(await page.getByRole('button', { name: 'Save as version' }).count(), 0);
  await screenshot(page, 'playground-viewer');
  assert.equal(unexpectedProblems(problems), []);
  await context.close();
});

test.run();

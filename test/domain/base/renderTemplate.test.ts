import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { playgroundProvider } from '../../../domain/playground/playgroundProvider.ts';
import { renderTemplate } from '../../../domain/base/renderTemplate.ts';

test('mustache: variables, dotted names, triple braces, no HTML escaping, comments', () => {
  const vars = { name: 'Ada & <Bob>', user: { city: 'Paris' }, n: 3 };
  assert.equal(renderTemplate('MUSTACHE', 'Hi {{name}} from {{ user.city }} ({{{n}}}){{! not sent }}', vars), {
    text: 'Hi Ada & <Bob> from Paris (3)',
  });
});

test('mustache: sections repeat over lists, show truthy values, inverted sections show empty ones', () => {
  const vars = { items: [{ t: 'a' }, { t: 'b' }], none: [], flag: true, who: 'me' };
  assert.equal(renderTemplate('MUSTACHE', '{{#items}}[{{t}}/{{who}}]{{/items}}{{^none}}empty{{/none}}{{#flag}}!{{/flag}}', vars), {
    text: '[a/me][b/me]empty!',
  });
});

test('f-string: named fields, literal braces, attribute and index access', () => {
  assert.equal(
    renderTemplate('F_STRING', '{{"json"}} {name} {user.city} {xs[1]}', { name: 'Ada', user: { city: 'Paris' }, xs: ['a', 'b'] }),
    {
      text: '{"json"} Ada Paris b',
    },
  );
});

test('NONE sends the text as written; braces are plain text', () => {
  assert.equal(renderTemplate('NONE', '{{x}} {y}', {}), { text: '{{x}} {y}' });
});

test('a template that does not parse, or a variable without a value, is a problem naming it', () => {
  assert.equal(renderTemplate('F_STRING', 'Hi {name', { name: 'x' }), {
    problem: '"{" at character 3 is never closed: expected "}" before the end (write "{{" for a literal brace)',
  });
  assert.equal(renderTemplate('MUSTACHE', '{{#a}}x', { a: 1 }), {
    problem: 'section "{{#a}}" at character 0 is never closed with "{{/a}}"',
  });
  assert.equal(renderTemplate('MUSTACHE', '{{a}} {{b}} {{c}}', { b: 1 }), { problem: 'no value for variables "a", "c"' });
});

test('providers: OpenAI and Anthropic by name, OpenAI-compatible ones need a base URL, others are refused by name', () => {
  assert.equal(playgroundProvider('openai'), {
    name: 'OPENAI',
    sdk: 'openai',
    otelName: 'openai',
    defaultKeyName: 'OPENAI_API_KEY',
    ownBaseUrl: 'https://api.openai.com/v1/',
  });
  assert.is((playgroundProvider('ANTHROPIC') as { sdk: string }).sdk, 'anthropic');
  assert.equal(playgroundProvider('OLLAMA'), {
    name: 'OLLAMA',
    sdk: 'openai',
    otelName: 'ollama',
    defaultKeyName: 'OLLAMA_API_KEY',
    ownBaseUrl: null,
  });
  assert.match((playgroundProvider('AWS') as { problem: string }).problem, /"AWS" is not supported by the playground yet/);
  assert.match((playgroundProvider('nope') as { problem: string }).problem, /"nope" is not a model provider/);
});

test.run();

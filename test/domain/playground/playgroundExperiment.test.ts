import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exampleVariables, playgroundOutput } from '../../../domain/playground/playgroundExperiment.ts';

/** How an example's input fills a template's variables, and what a run records as its output. */
const test = suite('playground experiment: variables and output');

test('a mapped variable takes its path in the input, an unmapped one the key of its own name, else the typed value', () => {
  const input = { question: 'Why?', meta: { lang: 'fr' }, 'a.b': 'dotted key' };
  const used = ['question', 'lang', 'tone', 'odd'];
  assert.equal(exampleVariables(input, { lang: 'meta.lang', odd: 'a.b' }, used, { tone: 'dry', question: 'typed' }), {
    question: 'Why?',
    lang: 'fr',
    tone: 'dry',
    odd: 'dotted key',
  });
});

test('a variable mapped to null keeps the typed value; a mapped path the input lacks leaves the variable missing', () => {
  const vars = exampleVariables({ question: 'from input' }, { question: null, lang: 'meta.lang' }, ['question', 'lang'], {
    question: 'typed',
    lang: 'typed too',
  });
  assert.equal(vars, { question: 'typed' }, 'so rendering names "lang" as having no value');
  assert.equal(exampleVariables('not an object', {}, ['x'], {}), {});
});

test('the output is the answer text, or the text with the tool calls when the model called tools', () => {
  assert.is(playgroundOutput('Hi', []), 'Hi');
  assert.equal(playgroundOutput('', [{ id: 'c1', name: 'f', arguments: '{}' }]), {
    content: '',
    tool_calls: [{ id: 'c1', name: 'f', arguments: '{}' }],
  });
});

test.run();

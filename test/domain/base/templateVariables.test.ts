import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fStringVariables, mustacheVariables, templateVariables } from '../../../domain/base/templateVariables.ts';

const problem = (parse: ReturnType<typeof mustacheVariables>): string => ('problem' in parse ? parse.problem : 'no problem');

test("mustache: variables, triple braces, comments, sections (names inside are the items')", () => {
  assert.equal(mustacheVariables('Hi {{ name }}, {{{html}}} {{&raw}} {{! a comment {{ }} }}'), { variables: ['name', 'html', 'raw'] });
  assert.equal(mustacheVariables('{{#docs}}{{title}}{{/docs}}{{^docs}}none{{/docs}}{{a.b}}'), { variables: ['docs', 'a'] });
  assert.equal(mustacheVariables('plain text, a single { brace } too'), { variables: [] });
});

test('mustache: what is wrong is named with its character', () => {
  assert.match(problem(mustacheVariables('Hi {{name')), /"\{\{" at character 3 is never closed/);
  assert.match(problem(mustacheVariables('{{}}')), /names no variable/);
  assert.match(problem(mustacheVariables('{{first name}}')), /a variable name is one word/);
  assert.match(problem(mustacheVariables('{{#a}}x{{/b}}')), /closes "\{\{#a\}\}" opened at character 0/);
  assert.match(problem(mustacheVariables('x{{/a}}')), /closes no open section/);
  assert.match(problem(mustacheVariables('{{#a}}')), /section "\{\{#a\}\}" at character 0 is never closed/);
  assert.match(problem(mustacheVariables('{{> partial}}')), /partials are not supported/);
  assert.match(problem(mustacheVariables('{{=<% %>=}}')), /changing delimiters/);
});

test('f-string: fields as Python formats them; doubled braces are literal', () => {
  assert.equal(fStringVariables('Hi {name}, {user.email} {items[0]} {score:.2f} {x!r} {{literal}}'), {
    variables: ['name', 'user', 'items', 'score', 'x'],
  });
  assert.equal(fStringVariables('{value:{width}}'), { variables: ['value'] });
});

test('f-string: lone braces, positional and non-name fields, bad conversions are refused', () => {
  assert.match(problem(fStringVariables('a } b')), /single "\}" at character 2/);
  assert.match(problem(fStringVariables('Hi {name')), /"\{" at character 3 is never closed/);
  assert.match(problem(fStringVariables('{}')), /names no variable/);
  assert.match(problem(fStringVariables('{0}')), /"0" is not a variable name/);
  assert.match(problem(fStringVariables('{"a": 1}')), /is not a variable name/);
  assert.match(problem(fStringVariables('{x!q}')), /a conversion is !r, !s or !a/);
});

test('format NONE takes braces as plain text', () => {
  assert.equal(templateVariables('NONE', '{{ unclosed { }'), { variables: [] });
});

test.run();

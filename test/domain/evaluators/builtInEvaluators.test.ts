import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUILT_IN_EVALUATORS } from '../../../domain/evaluators/builtInEvaluators.ts';
import { isSampled, samplePoint } from '../../../domain/evaluators/sampling.ts';
import { verdictOf } from '../../../domain/evaluators/verdict.ts';

const { contains, regex, exact_match, json_parseable, levenshtein_distance } = BUILT_IN_EVALUATORS;

test('contains: any word by default, all with require_all, case-insensitive unless asked', () => {
  assert.is(contains.evaluate({ words: ['Refund', 'return'] }, { output: 'I want a REFUND', expected: null }).score, 1);
  assert.is(contains.evaluate({ words: 'refund, return', require_all: true }, { output: 'a refund', expected: null }).score, 0);
  assert.is(contains.evaluate({ words: ['Refund'], case_sensitive: true }, { output: 'a refund', expected: null }).label, 'false');
  assert.equal(contains.problems({}), ['words must be a non-empty list of strings (or a comma-separated string)']);
});

test('regex: RE2 syntax in linear time; a backtracking bomb answers at once; back-references are refused', () => {
  const started = Date.now();
  const verdict = regex.evaluate({ pattern: '(a+)+$' }, { output: `${'a'.repeat(10_000)}!`, expected: null });
  assert.is(verdict.score, 0);
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  assert.is(regex.evaluate({ pattern: '\\d{4}', full_match: true }, { output: '2026', expected: null }).score, 1);
  assert.is(regex.evaluate({ pattern: '\\d{4}', full_match: true }, { output: 'in 2026', expected: null }).score, 0);
  assert.match(regex.problems({ pattern: '(a)\\1' })[0]!, /pattern is not a valid linear-time regular expression/);
});

test('exact_match, json_parseable and levenshtein_distance compare output with expected', () => {
  assert.is(exact_match.evaluate({}, { output: ' Paris ', expected: 'Paris' }).score, 1);
  assert.is(exact_match.evaluate({ case_sensitive: false }, { output: 'paris', expected: 'Paris' }).score, 1);
  assert.is(exact_match.evaluate({}, { output: { a: 1 }, expected: { a: 2 } }).score, 0);
  assert.is(json_parseable.evaluate({}, { output: '{"a": [1]}', expected: null }).score, 1);
  assert.is(json_parseable.evaluate({}, { output: '{"a": ', expected: null }).score, 0);
  assert.is(levenshtein_distance.evaluate({}, { output: 'kitten', expected: 'sitting' }).score, 3);
});

test('what code returns becomes a verdict: numbers, booleans, labels, objects; anything else is none', () => {
  assert.equal(verdictOf(0.5), { label: null, score: 0.5, explanation: null });
  assert.equal(verdictOf(true), { label: 'true', score: 1, explanation: null });
  assert.equal(verdictOf('good'), { label: 'good', score: null, explanation: null });
  assert.equal(verdictOf({ score: 1, label: 'ok', explanation: 'why' }), { label: 'ok', score: 1, explanation: 'why' });
  for (const none of [null, [], Number.NaN, {}, { explanation: 'only' }]) assert.is(verdictOf(none), null);
});

test('sampling by hash: about the rate, the same for every evaluator, and each lower rate a subset of the higher', () => {
  const ids = Array.from({ length: 10_000 }, (_, i) => `span-${i.toString(16).padStart(16, '0')}`);
  const at = (rate: number) => new Set(ids.filter((id) => isSampled(id, rate)));
  const ten = at(0.1);
  const quarter = at(0.25);
  assert.ok(Math.abs(ten.size - 1000) < 120, `10 %: ${ten.size}`);
  assert.ok(Math.abs(quarter.size - 2500) < 180, `25 %: ${quarter.size}`);
  for (const id of ten) assert.ok(quarter.has(id));
  assert.equal([...at(0.25)], [...quarter], 'same rate, same targets');
  assert.is(at(0).size, 0);
  assert.is(at(1).size, ids.length);
  assert.ok(samplePoint('a') >= 0 && samplePoint('a') < 1);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applySuggestion, completionContext, suggestions } from '../../../ui/src/lib/filters/filterCompletion.ts';

test('the word at the caret is completed, not a keyword and not text inside a string', () => {
  assert.equal(completionContext("span_kind == 'LLM' and llm.mo", 29), { start: 23, end: 29, prefix: 'llm.mo' });
  assert.is(completionContext("name == 'llm.mo", 15), null, 'inside a string');
  assert.is(completionContext('latency_ms > 5 and', 18), null, 'a keyword');
  assert.is(completionContext('latency_ms > ', 13), null, 'nothing typed');
});

test('fields come before attribute keys; a substring match needs two letters; the typed word itself is not offered', () => {
  const fields = ['latency_ms', 'name', 'span_kind'];
  const keys = ['llm.model_name', 'llm.provider', 'metadata.latency_bucket'];
  assert.equal(suggestions({ start: 0, end: 3, prefix: 'lat' }, fields, keys), ['latency_ms', 'metadata.latency_bucket']);
  assert.equal(suggestions({ start: 0, end: 1, prefix: 'a' }, fields, keys), []);
  assert.equal(suggestions({ start: 0, end: 4, prefix: 'name' }, fields, keys), ['llm.model_name']);
});

test('a chosen completion replaces the word and puts the caret after it', () => {
  const text = "llm.mo == 'x'";
  const context = completionContext(text, 6)!;
  assert.equal(applySuggestion(text, context, 'llm.model_name'), { text: "llm.model_name == 'x'", caret: 14 });
});

test.run();

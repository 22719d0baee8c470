import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtInPrices } from '../../../domain/prices/builtInPrices.ts';
import { compileNamePattern } from '../../../domain/prices/namePattern.ts';
import { priceBook } from '../../../domain/prices/priceBook.ts';
import { spanCost } from '../../../domain/prices/spanCost.ts';
import type { ModelPrice } from '../../../domain/prices/tokenPrice.ts';

const NOW = '2026-11-01T00:00:00.000Z';
const price = (model: string, namePattern: string, input: number, extra: Partial<ModelPrice> = {}): ModelPrice => ({
  model,
  namePattern,
  provider: null,
  effectiveFrom: '2026-01-01T00:00:00.000Z',
  prices: [
    { tokenType: 'input', usdPerToken: input, threshold: null },
    { tokenType: 'output', usdPerToken: input * 2, threshold: null },
  ],
  ...extra,
});
const usage = { prompt: 0, completion: 0, cacheRead: 0, cacheWrite: 0, audioPrompt: 0, audioCompletion: 0 };

test('the built-in table prices gpt-4o-mini and claude-sonnet-4-5 as LiteLLM lists them', () => {
  const book = priceBook(builtInPrices(), []);
  const mini = book.priceAt('gpt-4o-mini', 'openai', NOW)!;
  assert.is(mini.model, 'gpt-4o-mini');
  assert.equal(spanCost(mini, { ...usage, prompt: 1000, completion: 500 }), {
    prompt: 1000 * 1.5e-7,
    completion: 500 * 6e-7,
    total: 1000 * 1.5e-7 + 500 * 6e-7,
  });
  const sonnet = book.priceAt('Claude-Sonnet-4-5', null, NOW)!;
  assert.is(sonnet.model, 'claude-sonnet-4-5', 'names match case-insensitively');
  assert.is(book.priceAt('claude-sonnet-4-5-20250929', null, NOW)!.model, 'claude-sonnet-4-5-20250929');
});

test('a name must match a pattern whole: an unknown model, or one that merely contains a short name, has no price', () => {
  const book = priceBook(builtInPrices(), []);
  assert.is(book.priceAt('my-local-llama', null, NOW), null);
  assert.is(book.priceAt('foo1', null, NOW), null, '"o1" does not price "foo1"');
  assert.is(book.priceAt(null, null, NOW), null);
  assert.is(book.priceAt('', null, NOW), null);
});

test('every built-in pattern compiles, and every model is found by its own name', () => {
  const table = builtInPrices();
  const book = priceBook(table, []);
  const unmatched = table.filter((p) => !/[\\(|[]/.test(p.namePattern) && book.priceAt(p.namePattern, null, NOW) === null);
  assert.equal(unmatched, []);
});

test('the most specific matching pattern wins; the provider breaks a tie; then an admin price over the built-in one', () => {
  const generic = price('any-gpt', 'gpt-.*', 1e-6);
  const exact = price('gpt-x', 'gpt-x', 2e-6);
  assert.is(priceBook([], [generic, exact]).priceAt('gpt-x', null, NOW)!.model, 'gpt-x');
  assert.is(priceBook([], [generic, exact]).priceAt('gpt-y', null, NOW)!.model, 'any-gpt');
  const azure = price('gpt-x-azure', 'gpt-x', 3e-6, { provider: 'azure' });
  assert.is(priceBook([], [exact, azure]).priceAt('gpt-x', 'Azure', NOW)!.model, 'gpt-x-azure');
  assert.is(priceBook([], [exact, azure]).priceAt('gpt-x', 'openai', NOW)!.model, 'gpt-x');
  const builtIn = { ...price('b', 'gpt-x', 4e-6), effectiveFrom: null };
  assert.is(priceBook([builtIn], [exact]).priceAt('gpt-x', null, NOW)!.model, 'gpt-x', 'same specificity: the admin price');
  assert.is(priceBook([], [azure, exact]).priceAt('gpt-x', null, NOW)!.model, 'gpt-x', 'no provider asked: by model name');
});

test('the price in force at a time: the latest version from before it; before the first, none', () => {
  const v1 = price('m', 'm', 1e-6, { effectiveFrom: '2026-01-01T00:00:00.000Z' });
  const v2 = price('m', 'm', 2e-6, { effectiveFrom: '2026-06-01T00:00:00.000Z' });
  const book = priceBook([], [v2, v1]);
  assert.is(book.priceAt('m', null, '2025-12-31T23:59:59.999Z'), null);
  assert.is(book.priceAt('m', null, '2026-01-01T00:00:00.000Z'), v1);
  assert.is(book.priceAt('m', null, '2026-05-31T23:59:59.999Z'), v1);
  assert.is(book.priceAt('m', null, '2026-06-01T00:00:00.000Z'), v2);
  const builtIn = { ...price('m', 'm', 5e-6), effectiveFrom: null };
  assert.is(priceBook([builtIn], [v2]).priceAt('m', null, '2020-01-01T00:00:00.000Z'), builtIn, 'the built-in price until the override');
});

test('cost: cache and audio parts at their own prices, the rest of each total at input/output; above the threshold, the higher prices', () => {
  const sonnet = priceBook(builtInPrices(), []).priceAt('claude-sonnet-4-5', null, NOW)!;
  const cost = spanCost(sonnet, { ...usage, prompt: 1000, cacheRead: 400, cacheWrite: 100, completion: 200 });
  const prompt = 500 * 3e-6 + 400 * 3e-7 + 100 * 3.75e-6;
  assert.ok(Math.abs(cost.prompt - prompt) < 1e-15);
  assert.ok(Math.abs(cost.completion - 200 * 1.5e-5) < 1e-15);
  const big = spanCost(sonnet, { ...usage, prompt: 250_000, completion: 1000 });
  assert.ok(Math.abs(big.prompt - 250_000 * 6e-6) < 1e-12);
  assert.ok(Math.abs(big.completion - 1000 * 2.25e-5) < 1e-15);
  const audio = priceBook(builtInPrices(), []).priceAt('gpt-4o-mini-audio-preview', null, NOW)!;
  const a = spanCost(audio, { ...usage, prompt: 100, audioPrompt: 40, completion: 50, audioCompletion: 10 });
  assert.ok(Math.abs(a.prompt - (60 * 1.5e-7 + 40 * 1e-5)) < 1e-15);
  assert.ok(Math.abs(a.completion - (40 * 6e-7 + 10 * 2e-5)) < 1e-15);
  const mini = priceBook(builtInPrices(), []).priceAt('gpt-4o-mini', null, NOW)!;
  const noCacheWritePrice = spanCost(mini, { ...usage, prompt: 100, cacheWrite: 30 });
  assert.ok(Math.abs(noCacheWritePrice.prompt - 100 * 1.5e-7) < 1e-15, 'a part without a price of its own stays at the input price');
});

test('patterns that make a backtracking engine take exponential time match in linear time (RE2): a 33-a name with (a+)+ stored answers, no match', () => {
  // With JavaScript's RegExp the first held the event loop for minutes (issue 32).
  const classic = ['(a+)+', '(a|aa)+', '(a*)*b', '(.*a){20}', '(\\w+\\s?)+$', '([a-z]+)*$'];
  const book = priceBook(
    [],
    classic.map((p, i) => price(`evil-${i}`, p, 1e-6)),
  );
  for (const name of [`${'a'.repeat(33)}!`, `${'a'.repeat(255)}!`, `${'a '.repeat(127)}!`])
    assert.is(book.priceAt(name, null, NOW), null, name.slice(0, 40));
  assert.ok(book.priceAt('a'.repeat(40), null, NOW)?.model.startsWith('evil-'), 'and they still match what they describe');
});

test('what only a backtracking engine can do, or a pattern too big to match quickly, is refused by the decider’s compile', () => {
  for (const pattern of ['(a)\\1', 'gpt(?=-4)', '(?<!x)gpt', 'a{1000}', '(?:.{0,100}){5}x'])
    assert.throws(() => compileNamePattern(pattern), SyntaxError, pattern);
  assert.ok(compileNamePattern('gpt-4o(-mini)?(-\\d{4}-\\d{2}-\\d{2})?'));
});

test.run();

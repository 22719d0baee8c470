import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { histogramQuantiles } from '../../../projections/metrics/metricQueries.ts';
import { LATENCY_BIN_RATIO } from '../../../projections/metrics/traceRollup.ts';

/** percentile_cont on the values themselves. */
const exact = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const below = Math.floor(rank);
  return sorted[below]! + (rank - below) * ((sorted[below + 1] ?? sorted[below]!) - sorted[below]!);
};

/** The bins the rollup would hold for these latencies (traceRollup.ts's rule, in TypeScript). */
const histogram = (values: readonly number[]) => {
  const counts = new Map<number, number>();
  for (const ms of values) {
    const bin = ms < 1 ? 0 : 1 + Math.floor(Math.log(ms) / Math.log(LATENCY_BIN_RATIO));
    counts.set(bin, (counts.get(bin) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => a - b).map(([bin, count]) => ({ bin, count }));
};

test('p50, p95 and p99 of a histogram are within a bin (5 %) of percentile_cont on the values', () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  for (const n of [1, 2, 3, 10, 200, 5000]) {
    const values = Array.from({ length: n }, () => 200 * 100 ** random());
    const got = histogramQuantiles(histogram(values), [0.5, 0.95, 0.99]);
    for (const [i, p] of [0.5, 0.95, 0.99].entries()) {
      const want = exact(values, p);
      assert.ok(Math.abs(got[i]! - want) / want <= LATENCY_BIN_RATIO - 1, `n=${n} p${p * 100}: ${got[i]} vs ${want}`);
    }
  }
});

test('sub-millisecond traces sit in bin 0; an empty histogram has no quantiles', () => {
  const [p50] = histogramQuantiles([{ bin: 0, count: 3 }], [0.5]);
  assert.ok(p50! >= 0 && p50! < 1);
  assert.equal(histogramQuantiles([], [0.5, 0.99]), [null, null]);
});

test.run();

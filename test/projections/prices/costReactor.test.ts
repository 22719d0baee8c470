import type { DatabasePool } from 'slonik';
import { test } from 'uvu';
import type { DomainEvent } from '../../../domain/decider.ts';
import { PRICE_STREAM } from '../../../domain/prices/priceStream.ts';
import { projectStream } from '../../../domain/projects/projectStream.ts';
import { costReactor } from '../../../projections/prices/costReactor.ts';
import { tracingProjection } from '../../../projections/tracing/tracingProjection.ts';
import { inStream, reactorSpec } from '../../support/reactorSpec.ts';
import { attrs, batch, nanos, newTraceId, spanRecord } from '../../support/spanFixtures.ts';

const P = '11111111-1111-4111-8111-111111111111';
const created: DomainEvent = {
  type: 'ProjectCreated',
  data: { projectId: P, name: 'shop', description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
};
const ingested: DomainEvent = {
  type: 'SpansIngested',
  data: {
    ...batch('shop', [
      spanRecord({
        traceId: newTraceId(),
        spanKind: 'LLM',
        startTimeUnixNano: nanos('2026-11-02T00:00:00Z'),
        attributes: attrs({ 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.token_count.prompt': 10 }),
      }),
    ]),
    projectId: P,
  },
};
const priceSet: DomainEvent = {
  type: 'ModelPriceSet',
  data: {
    model: 'gpt-4o-mini',
    namePattern: 'gpt-4o-mini',
    provider: null,
    effectiveFrom: '2026-11-01T00:00:00Z',
    prices: [{ tokenType: 'input', usdPerToken: 1e-6, threshold: null }],
  },
};

// A spec only asks the reactor to decide (from the read models it is given); it never issues, so
// the pool `issue` works with is never touched.
const reactor = async () => costReactor({ pool: {} as DatabasePool });

test('given spans and then an admin price, when the reactor reacts to the price, then it reprices what the price reaches from its date', async () => {
  await reactorSpec(await reactor(), { readModels: [tracingProjection] })
    .given(inStream(projectStream('shop'), created), inStream('spans-a', ingested), inStream(PRICE_STREAM, priceSet))
    .then([
      {
        type: 'RepriceSpans',
        jobs: [{ from: '2026-11-01T00:00:00+00:00', patterns: ['gpt-4o-mini'] }],
      },
    ]);
});

test('given spans and no price change, when the schedule runs, then there is nothing to reprice', async () => {
  await reactorSpec(await reactor(), { readModels: [tracingProjection] })
    .given(inStream(projectStream('shop'), created), inStream('spans-a', ingested))
    .onSchedule(new Date('2026-11-03T00:00:00Z'))
    .then([]);
});

test('given a price change whose job is still queued (a crash, a rebuild), when the schedule runs, then it is worked off', async () => {
  await reactorSpec(await reactor(), { readModels: [tracingProjection] })
    .given(inStream(projectStream('shop'), created), inStream('spans-a', ingested), inStream(PRICE_STREAM, priceSet))
    .onSchedule(new Date('2026-11-03T00:00:00Z'))
    .thenMatches((commands) => {
      if (commands.length !== 1 || commands[0]!.jobs.length !== 1) throw new Error(`one job expected: ${JSON.stringify(commands)}`);
    });
});

test.run();

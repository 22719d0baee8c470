import { test } from 'uvu';
import type { SetModelPrice } from '../../../domain/prices/commands.ts';
import type { PriceEvent } from '../../../domain/prices/events.ts';
import { priceDecider } from '../../../domain/prices/priceDecider.ts';
import { deciderSpec } from '../../support/deciderSpec.ts';

const spec = deciderSpec(priceDecider);
const set: SetModelPrice = {
  type: 'SetModelPrice',
  model: ' gpt-4o-mini ',
  namePattern: 'gpt-4o-mini',
  provider: ' ',
  effectiveFrom: '2026-11-01T00:00:00+01:00',
  prices: [{ tokenType: 'input', usdPerToken: 2e-7, threshold: null }],
};
const setEvent: PriceEvent = {
  type: 'ModelPriceSet',
  data: {
    model: 'gpt-4o-mini',
    namePattern: 'gpt-4o-mini',
    provider: null,
    effectiveFrom: '2026-10-31T23:00:00.000Z',
    prices: [{ tokenType: 'input', usdPerToken: 2e-7, threshold: null }],
  },
};

test('given nothing, when an admin sets a price, then it is recorded trimmed, its date in UTC', () => {
  spec.given([]).when(set).then([setEvent]);
});

test('bad prices are refused, each naming what is wrong', () => {
  spec
    .given([])
    .when({ ...set, model: '' })
    .thenThrows('model_invalid');
  spec
    .given([])
    .when({ ...set, namePattern: 'gpt-(' })
    .thenThrows('name_pattern_invalid');
  spec
    .given([])
    .when({ ...set, effectiveFrom: 'yesterday' })
    .thenThrows('effective_from_invalid');
  // Dates outside what timestamptz and ISO text both hold (domain/base/storableTime.ts): year 0 stopped the tracing read model.
  for (const unstorable of ['0000-01-01T00:00:00Z', '+099999-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00'])
    spec
      .given([])
      .when({ ...set, effectiveFrom: unstorable })
      .thenThrows('effective_from_invalid');
  spec
    .given([])
    .when({ ...set, effectiveFrom: '0001-01-01T00:00:00Z' })
    .then([{ ...setEvent, data: { ...setEvent.data, effectiveFrom: '0001-01-01T00:00:00.000Z' } }]);
  spec
    .given([])
    .when({ ...set, effectiveFrom: '9999-12-31T23:59:59.999Z' })
    .then([{ ...setEvent, data: { ...setEvent.data, effectiveFrom: '9999-12-31T23:59:59.999Z' } }]);
  spec
    .given([])
    .when({ ...set, prices: [] })
    .thenThrows('prices_required');
  spec
    .given([])
    .when({ ...set, prices: [{ tokenType: 'input', usdPerToken: 3, threshold: null }] })
    .thenThrows('price_invalid');
  spec
    .given([])
    .when({ ...set, prices: [{ tokenType: 'input', usdPerToken: -1e-7, threshold: null }] })
    .thenThrows('price_invalid');
  spec
    .given([])
    .when({ ...set, prices: [...set.prices, { tokenType: 'input', usdPerToken: 1e-7, threshold: null }] })
    .thenThrows('token_type_repeated');
});

test('a version can be deleted once it exists, and only then', () => {
  spec
    .given([])
    .when({ type: 'DeleteModelPrice', model: 'gpt-4o-mini', effectiveFrom: '2026-10-31T23:00:00Z' })
    .thenThrows('price_not_found');
  spec
    .given([setEvent])
    .when({ type: 'DeleteModelPrice', model: 'gpt-4o-mini', effectiveFrom: '2026-10-31T23:00:00Z' })
    .then([{ type: 'ModelPriceDeleted', data: { model: 'gpt-4o-mini', effectiveFrom: '2026-10-31T23:00:00.000Z' } }]);
});

test.run();

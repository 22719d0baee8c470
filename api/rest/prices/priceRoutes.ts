import { z } from 'zod';
import { builtInPrices } from '../../../domain/prices/builtInPrices.ts';
import { deleteModelPrice, setModelPrice } from '../../../domain/prices/priceCommands.ts';
import { listCustomPrices } from '../../../projections/prices/priceQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { single } from '../../http/queryParams.ts';
import { dataOf, listOf } from '../../http/responseSchemas.ts';
import { storableTimeField } from '../../http/storableTimeField.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { priceBody, priceJson, priceSchema, tokenPricesOf } from './priceJson.ts';

const listQuery = z.object({ source: z.enum(['all', 'built_in', 'custom']).default('all'), model: single });
const deleteQuery = z.object({ model: z.string().min(1), effective_from: storableTimeField });

/**
 * Model prices (Loupe's; the reference keeps them in GraphQL only): the built-in table and the
 * admins' versions, each in force from its `effective_from`. Changing them is `prices.manage`
 * (admins); members and viewers read.
 */
export const priceRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/model_prices',
      query: listQuery,
      responses: { 200: listOf(priceSchema) },
      handler: async ({ query }) => {
        const custom = query.source === 'built_in' ? [] : await listCustomPrices(deps.pool);
        const all = [...(query.source === 'custom' ? [] : builtInPrices()), ...custom];
        return { data: all.filter((p) => query.model === undefined || p.model === query.model).map(priceJson) };
      },
    }),
    route({
      method: 'POST',
      path: '/v1/model_prices',
      body: priceBody,
      responses: { 201: dataOf(priceSchema.nullable()) },
      handler: async ({ body, command }) => {
        const result = await command((context) =>
          setModelPrice(
            deps.store,
            {
              model: body.model,
              namePattern: body.name_pattern,
              provider: body.provider ?? null,
              effectiveFrom: body.effective_from,
              prices: tokenPricesOf(body.prices),
            },
            context,
          ),
        );
        const event = result.events[0]!;
        const stored = (await listCustomPrices(deps.pool)).find(
          (p) =>
            event.type === 'ModelPriceSet' &&
            p.model === event.data.model &&
            Date.parse(p.effectiveFrom) === Date.parse(event.data.effectiveFrom),
        );
        return { data: stored === undefined ? null : priceJson(stored) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/model_prices',
      query: deleteQuery,
      responses: { 204: NO_CONTENT },
      handler: async ({ query, command }) => {
        await command((context) => deleteModelPrice(deps.store, { model: query.model, effectiveFrom: query.effective_from }, context));
        return undefined;
      },
    }),
  ];
};

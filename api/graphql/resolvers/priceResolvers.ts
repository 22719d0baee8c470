import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { builtInPrices } from '../../../domain/prices/builtInPrices.ts';
import { deleteModelPrice, setModelPrice } from '../../../domain/prices/priceCommands.ts';
import { type ModelPrice as DomainPrice, TOKEN_TYPES, type TokenType } from '../../../domain/prices/tokenPrice.ts';
import { type CustomPrice, listCustomPrices, unpricedModels } from '../../../projections/prices/priceQueries.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires } from '../requires.ts';
import { ModelPrice, SetModelPriceInput } from '../types/priceTypes.ts';
import { Project, ProjectSession, TimeRange, Trace } from '../types/tracingTypes.ts';

const modelPriceOf = (p: DomainPrice | CustomPrice): ModelPrice =>
  Object.assign(new ModelPrice(), {
    model: p.model,
    namePattern: p.namePattern,
    provider: p.provider,
    effectiveFrom: p.effectiveFrom,
    source: p.effectiveFrom === null ? 'built_in' : 'custom',
    prices: p.prices.map((t) => ({ tokenType: t.tokenType, usdPerToken: t.usdPerToken, threshold: t.threshold })),
    setBy: 'setBy' in p ? p.setBy : null,
    setAt: 'setAt' in p ? p.setAt : null,
  });

const tokenType = (t: string, i: number): TokenType => {
  if (!(TOKEN_TYPES as readonly string[]).includes(t))
    throw gqlError('token_type_invalid', `Argument "input.prices[${i}].tokenType" must be one of ${TOKEN_TYPES.join(', ')}`, 422);
  return t as TokenType;
};

@Resolver()
export class PriceResolver {
  @Query(() => [ModelPrice], { description: "Model prices: the built-in table and admins' versions (as REST GET /v1/model_prices)" })
  @Requires('read')
  async modelPrices(
    @Ctx() ctx: GraphqlContext,
    @Arg('source', () => String, { nullable: true }) source?: string | null,
  ): Promise<ModelPrice[]> {
    const custom = source === 'built_in' ? [] : await listCustomPrices(ctx.deps.pool);
    return [...(source === 'custom' ? [] : builtInPrices()), ...custom].map(modelPriceOf);
  }

  @Mutation(() => ModelPrice, { description: "A model's prices from a date on; spans from then are repriced in the background" })
  @Requires('prices.manage')
  async setModelPrice(@Ctx() ctx: GraphqlContext, @Arg('input', () => SetModelPriceInput) input: SetModelPriceInput): Promise<ModelPrice> {
    const result = await setModelPrice(
      ctx.deps.store,
      {
        model: input.model,
        namePattern: input.namePattern,
        provider: input.provider ?? null,
        effectiveFrom: input.effectiveFrom,
        prices: input.prices.map((p, i) => ({
          tokenType: tokenType(p.tokenType, i),
          usdPerToken: p.usdPerToken,
          threshold: p.threshold ? { promptTokens: p.threshold.promptTokens, usdPerToken: p.threshold.usdPerToken } : null,
        })),
      },
      ctx.command,
    );
    await ctx.settle(result.position);
    const event = result.events[0]!;
    const stored = (await listCustomPrices(ctx.deps.pool)).find(
      (p) => p.model === event.data.model && Date.parse(p.effectiveFrom) === Date.parse(event.data.effectiveFrom),
    );
    if (stored === undefined) throw gqlError('price_not_found', 'The price vanished while reading', 404);
    return modelPriceOf(stored);
  }

  @Mutation(() => Boolean, { description: 'Takes one admin price version back (spans it priced go back to what was in force before)' })
  @Requires('prices.manage')
  async deleteModelPrice(
    @Ctx() ctx: GraphqlContext,
    @Arg('model', () => String) model: string,
    @Arg('effectiveFrom', () => String) effectiveFrom: string,
  ): Promise<boolean> {
    const result = await deleteModelPrice(ctx.deps.store, { model, effectiveFrom }, ctx.command);
    await ctx.settle(result.position);
    return true;
  }
}

const windowOf = (range: TimeRange | null | undefined) => ({ start: range?.start ?? null, end: range?.end ?? null });
const UNPRICED = 'Models of LLM spans without a price ("" for spans naming no model): their spans show no cost';

@Resolver(() => Project)
export class ProjectPriceResolver {
  @FieldResolver(() => [String], { description: `${UNPRICED}; spans by start time in the range` })
  async unpricedModels(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('timeRange', () => TimeRange, { nullable: true }) timeRange?: TimeRange | null,
  ): Promise<string[]> {
    const w = windowOf(timeRange);
    return unpricedModels(ctx.deps.pool, { projectRowid: project.rowid, start: w.start, end: w.end });
  }
}

@Resolver(() => Trace)
export class TracePriceResolver {
  @FieldResolver(() => [String], { description: UNPRICED })
  async unpricedModels(@Root() trace: Trace, @Ctx() ctx: GraphqlContext): Promise<string[]> {
    return unpricedModels(ctx.deps.pool, { traceRowid: trace.rowid });
  }
}

@Resolver(() => ProjectSession)
export class SessionPriceResolver {
  @FieldResolver(() => [String], { description: UNPRICED })
  async unpricedModels(@Root() session: ProjectSession, @Ctx() ctx: GraphqlContext): Promise<string[]> {
    return unpricedModels(ctx.deps.pool, { sessionRowid: session.rowid });
  }
}

import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { recentAttributeKeys } from '../../../projections/filters/attributeKeyQueries.ts';
import { compileFilter, filterFields } from '../../../projections/filters/compileFilter.ts';
import { FilterError, parseFilter } from '../../../domain/filters/filterSyntax.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { Requires } from '../requires.ts';
import { FilterConditionCheck, FilterSubjectKind } from '../types/filterTypes.ts';
import { Project } from '../types/tracingTypes.ts';

/** The filter language's help for the UI: checking a condition as it is typed, and what to complete. */
@Resolver()
export class FilterQueryResolver {
  @Requires('read')
  @Query(() => FilterConditionCheck, { description: 'Parses and checks a filter condition without running it' })
  filterConditionCheck(
    @Arg('subject', () => FilterSubjectKind) subject: FilterSubjectKind,
    @Arg('condition', () => String) condition: string,
  ): FilterConditionCheck {
    try {
      compileFilter(parseFilter(condition), subject);
      return { valid: true, position: null, expected: null, message: null };
    } catch (error) {
      if (!(error instanceof FilterError)) throw error;
      return { valid: false, position: error.position, expected: error.expected, message: error.message };
    }
  }

  @Requires('read')
  @Query(() => [String], { description: 'The fields a filter condition may name for this subject (attributes aside)' })
  filterFields(@Arg('subject', () => FilterSubjectKind) subject: FilterSubjectKind): readonly string[] {
    return filterFields(subject);
  }
}

@Resolver(() => Project)
export class ProjectFilterResolver {
  @FieldResolver(() => [String], { description: "Attribute keys of the project's newest spans, for completing filter conditions" })
  async spanAttributeKeys(
    @Root() project: Project,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 200 }) first: number,
  ): Promise<readonly string[]> {
    return recentAttributeKeys(ctx.deps.pool, project.rowid, Math.max(1, Math.min(first, 1000)));
  }
}

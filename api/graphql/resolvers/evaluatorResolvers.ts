import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { findEvaluator, listEvaluators, listProjectEvaluators } from '../../../projections/evaluators/evaluatorQueries.ts';
import { findProjectById } from '../../../projections/projects/projectQueries.ts';
import { evaluatorOf, projectEvaluatorOf } from '../evaluatorMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, connectionOf, type Connection } from '../relay.ts';
import { Requires } from '../requires.ts';
import { Evaluator, EvaluatorConnection, ProjectEvaluator } from '../types/evaluatorTypes.ts';
import { Project } from '../types/tracingTypes.ts';

@Resolver()
export class EvaluatorQueryResolver {
  @Query(() => EvaluatorConnection, { description: 'Every evaluator (LLM, code, built-in), newest first' })
  @Requires('read')
  async evaluators(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 100 }) first: number,
  ): Promise<Connection<Evaluator>> {
    const limit = checkFirst(first);
    const rows = await listEvaluators(ctx.deps.pool, { cursor: null, limit });
    return connectionOf(rows, limit, 'Evaluator', evaluatorOf);
  }
}

@Resolver(() => ProjectEvaluator)
export class ProjectEvaluatorResolver {
  @FieldResolver(() => Evaluator, { nullable: true })
  async evaluator(@Root() attachment: ProjectEvaluator, @Ctx() ctx: GraphqlContext): Promise<Evaluator | null> {
    const row = await findEvaluator(ctx.deps.pool, { id: attachment.evaluatorRowid });
    return row === null ? null : evaluatorOf(row);
  }
}

@Resolver(() => Project)
export class ProjectEvaluatorsResolver {
  @FieldResolver(() => [ProjectEvaluator], { description: 'The evaluators judging this project online' })
  async evaluators(@Root() project: Project, @Ctx() ctx: GraphqlContext): Promise<ProjectEvaluator[]> {
    const row = await findProjectById(ctx.deps.pool, project.rowid);
    return row === null ? [] : (await listProjectEvaluators(ctx.deps.pool, row.project_id)).map(projectEvaluatorOf);
  }
}

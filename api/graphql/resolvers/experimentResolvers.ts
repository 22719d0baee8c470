import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { findDataset, findDatasetVersion } from '../../../projections/datasets/datasetQueries.ts';
import { listExperiments } from '../../../projections/experiments/experimentQueries.ts';
import { datasetOf, versionOf } from '../datasetMappers.ts';
import { experimentOf } from '../experimentMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { checkFirst, type Connection, connectionOf, emptyConnection, parseAfter } from '../relay.ts';
import { Dataset, DatasetVersion } from '../types/datasetTypes.ts';
import { Experiment, ExperimentConnection } from '../types/experimentTypes.ts';

/** A dataset's experiments (a field of Dataset, resolved by the experiments feature). */
@Resolver(() => Dataset)
export class DatasetExperimentsResolver {
  @FieldResolver(() => ExperimentConnection, { description: 'Experiments on any version of the dataset, newest first' })
  async experiments(
    @Root() dataset: Dataset,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<Experiment>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Experiment');
    if (from.kind === 'end') return emptyConnection();
    const rows = await listExperiments(ctx.deps.pool, {
      datasetId: dataset.datasetUuid,
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
    });
    return connectionOf(rows, limit, 'Experiment', experimentOf, from.kind === 'from');
  }
}

@Resolver(() => Experiment)
export class ExperimentFieldResolver {
  @FieldResolver(() => Dataset, { nullable: true, description: 'Null only while the dataset is being deleted' })
  async dataset(@Root() experiment: Experiment, @Ctx() ctx: GraphqlContext): Promise<Dataset | null> {
    const row = await findDataset(ctx.deps.pool, { id: experiment.datasetRowid });
    return row && datasetOf(row);
  }

  @FieldResolver(() => DatasetVersion, { nullable: true, description: 'The version the experiment ran on' })
  async datasetVersion(@Root() experiment: Experiment, @Ctx() ctx: GraphqlContext): Promise<DatasetVersion | null> {
    const row = await findDatasetVersion(ctx.deps.pool, { id: experiment.versionRowid });
    return row && versionOf(row);
  }
}

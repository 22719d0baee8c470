import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import {
  examplesAtVersion,
  exampleRevisionAt,
  findDataset,
  findDatasetExample,
  findDatasetVersion,
  labelsOfDataset,
  listDatasetSplits,
  listDatasets,
  listDatasetVersions,
  splitsOfExample,
} from '../../../projections/datasets/datasetQueries.ts';
import { fromGlobalId, toGlobalId } from '../../http/globalId.ts';
import { datasetOf, exampleOf, labelOf, revisionOf, splitOf, versionOf } from '../datasetMappers.ts';
import { isoMicros } from '../dateTimeScalar.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { checkFirst, connectionOf, emptyConnection, parseAfter, type Connection, type Node } from '../relay.ts';
import { Requires } from '../requires.ts';
import {
  Dataset,
  DatasetConnection,
  DatasetExample,
  DatasetExampleConnection,
  DatasetExampleRevision,
  DatasetLabel,
  DatasetSplit,
  type DatasetVersion,
  DatasetVersionConnection,
} from '../types/datasetTypes.ts';

const rowidOf = (type: string, raw: string, argument: string): number => {
  const id = fromGlobalId(type, raw);
  if (id === null || !/^\d{1,15}$/.test(id))
    throw gqlError('invalid_input', `Argument "${argument}": ${JSON.stringify(raw)} is not a ${type} id`);
  return Number(id);
};

/** A version of this dataset named by `raw`, or its latest; null when the dataset has none (or `raw` is another's). */
const versionRowOf = async (ctx: GraphqlContext, datasetUuid: string, raw: string | null | undefined) => {
  const row =
    raw == null
      ? await findDatasetVersion(ctx.deps.pool, { latestOf: datasetUuid })
      : await findDatasetVersion(ctx.deps.pool, { id: rowidOf('DatasetVersion', raw, 'datasetVersionId') });
  return row !== null && row.dataset_id === datasetUuid ? row : null;
};

/** `node(id:)` for the dataset types; null when there is no such object. */
export const datasetNodeById = async (ctx: GraphqlContext, type: string, rowid: number | null): Promise<Node | null> => {
  if (rowid === null) return null;
  const pool = ctx.deps.pool;
  switch (type) {
    case 'Dataset': {
      const row = await findDataset(pool, { id: rowid });
      return row && datasetOf(row);
    }
    case 'DatasetVersion': {
      const row = await findDatasetVersion(pool, { id: rowid });
      return row && versionOf(row);
    }
    case 'DatasetExample': {
      const row = await findDatasetExample(pool, rowid);
      if (row === null) return null;
      return Object.assign(new DatasetExample(), {
        id: toGlobalId('DatasetExample', String(row.id)),
        rowid: row.id,
        exampleUuid: row.example_id,
        datasetUuid: row.dataset_id,
        externalId: row.external_id,
        createdAt: isoMicros(row.created_us),
        readAt: null,
      });
    }
    default:
      return null;
  }
};

@Resolver()
export class DatasetQueryResolver {
  @Query(() => DatasetConnection, { description: 'Datasets, newest first' })
  @Requires('read')
  async datasets(
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<Dataset>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'Dataset');
    if (from.kind === 'end') return emptyConnection();
    const rows = await listDatasets(ctx.deps.pool, { cursor: from.kind === 'from' ? from.rowid : null, limit });
    return connectionOf(rows, limit, 'Dataset', datasetOf, from.kind === 'from');
  }
}

@Resolver(() => Dataset)
export class DatasetFieldResolver {
  @FieldResolver(() => Int, { description: 'Examples in the latest version' })
  exampleCount(@Root() dataset: Dataset): number {
    return dataset.latestExampleCount;
  }

  @FieldResolver(() => DatasetVersionConnection, { description: 'Versions, newest first' })
  async versions(
    @Root() dataset: Dataset,
    @Ctx() ctx: GraphqlContext,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<DatasetVersion>> {
    const limit = checkFirst(first);
    const from = parseAfter(after, 'DatasetVersion');
    if (from.kind === 'end') return emptyConnection();
    const rows = await listDatasetVersions(ctx.deps.pool, {
      datasetId: dataset.datasetUuid,
      cursor: from.kind === 'from' ? from.rowid : null,
      limit,
    });
    return connectionOf(rows, limit, 'DatasetVersion', versionOf, from.kind === 'from');
  }

  @FieldResolver(() => DatasetExampleConnection, { description: 'The examples at a version (default: the latest), oldest first' })
  async examples(
    @Root() dataset: Dataset,
    @Ctx() ctx: GraphqlContext,
    @Arg('datasetVersionId', () => ID, { nullable: true }) datasetVersionId?: string | null,
    @Arg('first', () => Int, { defaultValue: 50 }) first?: number,
    @Arg('after', () => String, { nullable: true }) after?: string | null,
  ): Promise<Connection<DatasetExample>> {
    const limit = checkFirst(first ?? 50);
    const from = parseAfter(after, 'DatasetExample');
    if (from.kind === 'end') return emptyConnection();
    const version = await versionRowOf(ctx, dataset.datasetUuid, datasetVersionId);
    if (version === null) {
      if (datasetVersionId == null) return emptyConnection();
      throw gqlError(
        'dataset_version_not_found',
        `No version ${JSON.stringify(datasetVersionId)} of dataset ${JSON.stringify(dataset.name)}`,
        404,
      );
    }
    const rows = await examplesAtVersion(ctx.deps.pool, {
      datasetId: dataset.datasetUuid,
      versionRow: version.id,
      // `after` names the first row of the page (inclusive); the query starts after a row.
      afterRow: from.kind === 'from' ? from.rowid - 1 : null,
      limit: limit + 1,
    });
    return connectionOf(rows, limit, 'DatasetExample', (row) => exampleOf(row, dataset.datasetUuid), from.kind === 'from');
  }

  @FieldResolver(() => [DatasetSplit], { description: 'The splits this dataset’s examples are in, by name' })
  async splits(@Root() dataset: Dataset, @Ctx() ctx: GraphqlContext): Promise<DatasetSplit[]> {
    return (await listDatasetSplits(ctx.deps.pool, dataset.datasetUuid)).filter((s) => s.example_count > 0).map(splitOf);
  }

  @FieldResolver(() => [DatasetLabel], { description: 'The dataset’s labels, by name' })
  async labels(@Root() dataset: Dataset, @Ctx() ctx: GraphqlContext): Promise<DatasetLabel[]> {
    return (await labelsOfDataset(ctx.deps.pool, dataset.datasetUuid)).map(labelOf);
  }
}

@Resolver(() => DatasetExample)
export class DatasetExampleFieldResolver {
  @FieldResolver(() => DatasetExampleRevision, {
    description: 'The content as of a version (default: as read, else the latest); an example deleted by then shows kind DELETE',
  })
  async revision(
    @Root() example: DatasetExample,
    @Ctx() ctx: GraphqlContext,
    @Arg('datasetVersionId', () => ID, { nullable: true }) datasetVersionId?: string | null,
  ): Promise<DatasetExampleRevision> {
    if (datasetVersionId == null && example.readAt !== null) return example.readAt;
    const version = datasetVersionId == null ? null : await versionRowOf(ctx, example.datasetUuid, datasetVersionId);
    if (datasetVersionId != null && version === null)
      throw gqlError('dataset_version_not_found', `No version ${JSON.stringify(datasetVersionId)} of this example's dataset`, 404);
    const row = await exampleRevisionAt(ctx.deps.pool, example.exampleUuid, version?.id ?? null);
    if (row === null) throw gqlError('dataset_example_not_found', `Example ${example.id} did not exist at that version`, 404);
    return revisionOf(row);
  }

  @FieldResolver(() => [DatasetSplit], { description: 'The splits the example is in, by name' })
  async datasetSplits(@Root() example: DatasetExample, @Ctx() ctx: GraphqlContext): Promise<DatasetSplit[]> {
    const rows = await splitsOfExample(ctx.deps.pool, example.datasetUuid, example.exampleUuid);
    return rows.map(splitOf);
  }
}

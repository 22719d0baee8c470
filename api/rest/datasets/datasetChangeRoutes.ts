import { z } from 'zod';
import { editDatasetExamples } from '../../../domain/datasets/editDatasetExamples.ts';
import { exampleHash } from '../../../domain/datasets/exampleHash.ts';
import type { ExamplePatch } from '../../../domain/datasets/events.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import {
  examplesAtVersion,
  findDatasetExamples,
  listDatasetSplits,
  listDatasetVersions,
  versionChanges,
  type DatasetRow,
} from '../../../projections/datasets/datasetQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { limitParam, single } from '../../http/queryParams.ts';
import { cursorOf } from '../../http/page.ts';
import { datasetGid, exampleGid, splitJson, splitSchema, versionGid } from './datasetJson.ts';
import { datasetById, datasetByIdentifier, versionOf } from './resolveDataset.ts';
import { anyGlobalId } from '../../http/globalId.ts';
import { shown } from '../../http/httpError.ts';
import { listOf } from '../../http/responseSchemas.ts';

/**
 * Loupe's own routes for what the reference does over GraphQL (`patchDatasetExamples`,
 * `deleteDatasetExamples`, `datasetSplits`) and for a version's "what changed": the dataset pages
 * use them. Every change of examples is a new version, as an upload's.
 */

const jsonObject = z.record(z.string(), z.unknown());
const MAX_CHANGES = 10_000;

const changeBody = z
  .object({
    description: z.string().nullish(),
    metadata: jsonObject.nullish(),
    patch: z
      .array(z.object({ id: z.string(), input: jsonObject.optional(), output: jsonObject.optional(), metadata: jsonObject.optional() }))
      .max(MAX_CHANGES)
      .nullish(),
    delete: z.array(z.string()).max(MAX_CHANGES).nullish(),
  })
  .refine((b) => (b.patch?.length ?? 0) + (b.delete?.length ?? 0) > 0, { message: 'patch or delete at least one example' });

/** Example GlobalIDs as this dataset's uuids; not a DatasetExample id is a 422, one of another dataset a 404. */
const exampleUuids = async (deps: AppDeps, dataset: DatasetRow, raw: readonly string[], field: string): Promise<Map<string, string>> => {
  const rowids = raw.map((r, i) => {
    const gid = anyGlobalId(r);
    if (gid?.type !== 'DatasetExample')
      throw new HttpError(422, 'invalid_body', `body.${field}.${i}: ${shown(r)} is not a DatasetExample id`);
    return gid.id;
  });
  const found = rowids.length === 0 ? [] : await findDatasetExamples(deps.pool, dataset.dataset_id, { ids: rowids });
  const byRow = new Map(found.map((f) => [f.id, f.example_id]));
  const missing = raw.filter((_, i) => !byRow.has(rowids[i]!));
  if (missing.length > 0)
    throw new HttpError(
      404,
      'dataset_example_not_found',
      `body.${field}: no examples of this dataset with ids ${missing.slice(0, 10).join(', ')}`,
    );
  return new Map(raw.map((r, i) => [r, byRow.get(rowids[i]!)!]));
};

const kindOf = { CREATE: 'created', PATCH: 'patched', DELETE: 'deleted' } as const;

const newVersion = z.object({
  data: z.object({
    dataset_id: z.string(),
    version_id: z.string(),
    num_created_examples: z.number(),
    num_updated_examples: z.number(),
    num_deleted_examples: z.number(),
  }),
});
const versionChangesSchema = z.object({
  data: z.object({
    version_id: z.string(),
    num_created_examples: z.number(),
    num_updated_examples: z.number(),
    num_deleted_examples: z.number(),
    changes: z.array(
      z.object({
        id: z.string(),
        node_id: z.string(),
        kind: z.string(),
        input: z.unknown(),
        output: z.unknown(),
        metadata: z.unknown(),
        before: z.object({ input: z.unknown(), output: z.unknown(), metadata: z.unknown() }).nullable(),
      }),
    ),
  }),
  next_cursor: z.string().nullable(),
});

export const datasetChangeRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    /**
     * A new version that patches and deletes examples alive at the latest version. A patch gives any
     * of input, output and metadata (the others stay); one that changes nothing is left out.
     */
    route({
      method: 'POST',
      path: '/v1/datasets/:id/versions',
      body: changeBody,
      responses: { 201: newVersion },
      handler: async ({ body, command, params, context }) => {
        const dataset = await datasetById(deps, params.id);
        const patches = body.patch ?? [];
        const deletes = body.delete ?? [];
        const uuids = await exampleUuids(deps, dataset, [...patches.map((p) => p.id), ...deletes], 'patch/delete');
        const latest = await versionOf(deps, dataset, undefined);
        const alive = new Map(
          (
            await examplesAtVersion(deps.pool, {
              datasetId: dataset.dataset_id,
              versionRow: latest.id,
              exampleIds: [...new Set(uuids.values())],
            })
          ).map((e) => [e.example_id, e]),
        );
        const gone = [...uuids.keys()].filter((raw) => !alive.has(uuids.get(raw)!));
        if (gone.length > 0)
          throw new HttpError(
            404,
            'dataset_example_not_found',
            `Examples ${gone.slice(0, 10).join(', ')} are not in the latest version (deleted in an earlier one)`,
          );
        const patched: ExamplePatch[] = [];
        for (const p of patches) {
          const current = alive.get(uuids.get(p.id)!)!;
          const next = {
            exampleId: current.example_id,
            input: (p.input ?? current.input) as JsonObject,
            output: (p.output ?? current.output) as JsonObject,
            metadata: (p.metadata ?? current.metadata) as JsonObject,
          };
          if (exampleHash(next) !== exampleHash(current)) patched.push(next);
        }
        const deleted = deletes.map((raw) => uuids.get(raw)!);
        if (patched.length + deleted.length === 0)
          throw new HttpError(422, 'nothing_changed', 'body.patch: every patch leaves its example as it is; no version was made');
        await command(() =>
          editDatasetExamples(
            deps.store,
            {
              datasetId: dataset.dataset_id,
              description: body.description ?? null,
              metadata: (body.metadata ?? {}) as JsonObject,
              patched,
              deleted,
            },
            context,
          ),
        );
        const version = await versionOf(deps, dataset, undefined);
        return {
          data: {
            dataset_id: datasetGid(dataset.id),
            version_id: versionGid(version.id),
            num_created_examples: 0,
            num_updated_examples: patched.length,
            num_deleted_examples: deleted.length,
          },
        };
      },
    }),

    /** What one version changed: its counts, then each example it touched (a patch with the content before it). */
    route({
      method: 'GET',
      path: '/v1/datasets/:id/versions/:version_id/changes',
      query: z.object({ cursor: single, limit: limitParam(100, 1000) }),
      responses: { 200: versionChangesSchema },
      handler: async ({ query: q, params }) => {
        const dataset = await datasetById(deps, params.id);
        const version = await versionOf(deps, dataset, params.version_id);
        // The version's own row of the list (cursor at it, no further rows).
        const [counts] = await listDatasetVersions(deps.pool, { datasetId: dataset.dataset_id, cursor: version.id, limit: 0 });
        const rows = await versionChanges(deps.pool, {
          datasetId: dataset.dataset_id,
          versionRow: version.id,
          afterRow: cursorOf(q.cursor),
          limit: q.limit + 1,
        });
        return {
          data: {
            version_id: versionGid(version.id),
            num_created_examples: counts?.num_created ?? 0,
            num_updated_examples: counts?.num_patched ?? 0,
            num_deleted_examples: counts?.num_deleted ?? 0,
            changes: rows.slice(0, q.limit).map((r) => ({
              id: r.external_id ?? exampleGid(r.id),
              node_id: exampleGid(r.id),
              kind: kindOf[r.kind],
              input: r.input,
              output: r.output,
              metadata: r.metadata,
              before: r.kind === 'PATCH' ? { input: r.before_input, output: r.before_output, metadata: r.before_metadata } : null,
            })),
          },
          // Exclusive: the next page starts after the last example shown.
          next_cursor: rows.length > q.limit ? exampleGid(rows[q.limit - 1]!.id) : null,
        };
      },
    }),

    /** Every split (splits are global), each with how many examples of this dataset it holds. */
    route({
      method: 'GET',
      path: '/v1/datasets/:dataset_identifier/splits',
      responses: { 200: listOf(splitSchema) },
      handler: async ({ params }) => {
        const dataset = await datasetByIdentifier(deps, params.dataset_identifier);
        return { data: (await listDatasetSplits(deps.pool, dataset.dataset_id)).map(splitJson) };
      },
    }),
  ];
};

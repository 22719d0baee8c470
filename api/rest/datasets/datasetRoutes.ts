import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { z } from 'zod';
import { changeDataset } from '../../../domain/datasets/changeDataset.ts';
import { uploadDataset, type NewExample } from '../../../domain/datasets/uploadDataset.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import {
  countCreatedExamples,
  examplesAtVersion,
  findDataset,
  findDatasetVersion,
  listDatasets,
  listDatasetVersions,
} from '../../../projections/datasets/datasetQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { HttpError } from '../../http/httpError.ts';
import { describeIssues } from '../../http/parseBody.ts';
import { type RawUpload, type RestRequest, routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { boolParam, limitParam, repeated, single } from '../../http/queryParams.ts';
import { byRowid, cursorOf, page } from '../../http/page.ts';
import {
  datasetGid,
  datasetJson,
  datasetSchema,
  exampleJson,
  examplesSchema,
  uploadBody,
  versionGid,
  versionWithChangesJson,
  versionWithChangesSchema,
} from './datasetJson.ts';
import { datasetById, splitsOf, versionOf } from './resolveDataset.ts';
import { shown } from '../../http/httpError.ts';
import { csvExamples, jsonlExamples, listedExamples, type UploadKeys } from './uploadParsers.ts';
import { NO_CONTENT } from '../../http/answer.ts';
import { dataOf, pageOf } from '../../http/responseSchemas.ts';

const ACTIONS = ['create', 'append', 'update'] as const;
type Action = (typeof ACTIONS)[number];

const actionOf = (raw: string | undefined): Action => {
  const action = raw ?? 'create';
  // The reference's message (typo included): the JS client matches it to fall back from update to create.
  if (!(ACTIONS as readonly string[]).includes(action)) throw new HttpError(422, 'invalid_action', `Invalid dateset action: ${action}`);
  return action as Action;
};

const readJson = async (upload: RawUpload, limit: number): Promise<unknown> => {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of upload.stream as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) throw new HttpError(413, 'request_too_large', `Request body exceeds ${limit} bytes`);
    parts.push(part);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch (error) {
    throw new HttpError(400, 'malformed_body', `Request body is not valid JSON: ${(error as Error).message}`);
  }
};

/** The JSON body's lists as examples; a list of another length than `inputs` is a 422 naming it. */
const examplesOfBody = (body: UploadBody): NewExample[] => {
  const n = body.inputs.length;
  for (const key of ['outputs', 'metadata', 'splits', 'span_ids', 'example_ids'] as const) {
    const list = body[key];
    if (list != null && list.length !== n)
      throw new HttpError(422, 'invalid_body', `body.${key}: must have one entry per input (${n}), has ${list.length}`);
  }
  const externalIds = (body.example_ids ?? []).filter((x): x is string => x !== null);
  if (new Set(externalIds).size !== externalIds.length) throw new HttpError(422, 'invalid_body', 'body.example_ids: must not repeat an id');
  return body.inputs.map((input, i) => {
    const split = body.splits?.[i];
    return {
      externalId: body.example_ids?.[i] ?? null,
      input: input as JsonObject,
      output: (body.outputs?.[i] ?? {}) as JsonObject,
      metadata: (body.metadata?.[i] ?? {}) as JsonObject,
      splits: split == null ? [] : typeof split === 'string' ? [split] : split.filter((s): s is string => s !== null),
      spanId: body.span_ids?.[i] ?? null,
    };
  });
};
type UploadBody = z.infer<typeof uploadBody>;

type Form = { readonly fields: Map<string, string[]>; readonly file: { stream: Readable; mimeType: string; filename: string } | null };

/** The form's fields up to its file part; the file is left to stream. Fields after the file are not read. */
const readForm = (upload: RawUpload): Promise<Form> =>
  new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: upload.stream.headers, limits: { files: 1, fields: 10_000, fieldSize: 1024 * 1024 } });
    } catch (error) {
      reject(new HttpError(400, 'malformed_multipart', `Request body is not valid multipart/form-data: ${(error as Error).message}`));
      return;
    }
    const fields = new Map<string, string[]>();
    parser.on('field', (name, value) => fields.set(name.replace(/\[\]$/, ''), [...(fields.get(name.replace(/\[\]$/, '')) ?? []), value]));
    parser.on('file', (name, stream, info) => {
      if (name !== 'file') {
        stream.resume();
        return;
      }
      // Only the fields sent before the file count: what arrives after it depends on how the body was chunked.
      resolve({ fields: new Map(fields), file: { stream, mimeType: info.mimeType, filename: info.filename ?? 'upload' } });
    });
    parser.on('close', () => resolve({ fields, file: null }));
    parser.on('error', (error) =>
      reject(new HttpError(400, 'malformed_multipart', `Request body is not valid multipart/form-data: ${(error as Error).message}`)),
    );
    upload.stream.pipe(parser);
  });

const one = (form: Form, name: string): string | null => form.fields.get(name)?.at(-1) ?? null;

type Upload = { action: Action; name: string; description: string | null; chunks: AsyncIterable<readonly NewExample[]> };

const uploadFromForm = async (upload: RawUpload): Promise<Upload> => {
  const form = await readForm(upload);
  const name = one(form, 'name');
  if (name === null) throw new HttpError(422, 'invalid_body', 'body.name: Required (a form field before the file)');
  const action = actionOf(one(form, 'action') ?? undefined);
  if (form.file === null) throw new HttpError(422, 'invalid_body', 'body.file: Required');
  const splitKey = one(form, 'split_key') ?? form.fields.get('split_keys')?.[0] ?? null;
  if (one(form, 'split_key') !== null && form.fields.has('split_keys'))
    throw new HttpError(422, 'invalid_body', 'body.split_keys: cannot be combined with split_key');
  const keys: UploadKeys = {
    inputKeys: form.fields.get('input_keys') ?? [],
    outputKeys: form.fields.get('output_keys') ?? [],
    metadataKeys: form.fields.get('metadata_keys') ?? [],
    splitKey,
    spanIdKey: one(form, 'span_id_key'),
    exampleIdKey: one(form, 'example_id_key'),
  };
  const { stream, mimeType, filename } = form.file;
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  const chunks =
    type === 'text/csv'
      ? csvExamples(stream, keys)
      : type === 'application/jsonl' || type === 'application/x-ndjson'
        ? jsonlExamples(stream, keys)
        : null;
  if (chunks === null) {
    stream.resume();
    throw new HttpError(415, 'unsupported_file_type', `file: content type "${mimeType}" is not supported (text/csv or application/jsonl)`);
  }
  return { action, name, description: one(form, 'description') ?? filename, chunks };
};

const uploadFromJson = async (upload: RawUpload, deps: AppDeps): Promise<Upload> => {
  const raw = await readJson(upload, deps.settings.maxRequestBytes);
  const parsed = uploadBody.safeParse(raw);
  if (!parsed.success) throw new HttpError(422, 'invalid_body', describeIssues('body', parsed.error));
  const action = actionOf(parsed.data.action);
  return {
    action,
    name: parsed.data.name,
    description: parsed.data.description ?? null,
    chunks: listedExamples(examplesOfBody(parsed.data)),
  };
};

/** What an upload answers: nothing to wait for (`null`, the reference's async answer), or what it made. */
const uploadAnswer = z
  .object({
    data: z.object({
      dataset_id: z.string(),
      version_id: z.string(),
      num_created_examples: z.number(),
      num_updated_examples: z.number(),
      num_deleted_examples: z.number(),
    }),
  })
  .nullable();

const upload = async (
  deps: AppDeps,
  sync: boolean,
  { body, headers, context, settle }: Pick<RestRequest<unknown, unknown, RawUpload>, 'body' | 'headers' | 'context' | 'settle'>,
): Promise<z.input<typeof uploadAnswer>> => {
  const type = (headers['content-type'] || '').split(';')[0]!.trim().toLowerCase();
  if (type === '') throw new HttpError(400, 'missing_content_type', 'Content-Type is required (application/json or multipart/form-data)');
  if (type !== 'application/json' && type !== 'multipart/form-data')
    throw new HttpError(415, 'unsupported_media_type', `Content-Type "${type}" is not supported (application/json or multipart/form-data)`);
  try {
    const input = type === 'application/json' ? await uploadFromJson(body, deps) : await uploadFromForm(body);
    const existing = await findDataset(deps.pool, { name: input.name });
    if (existing !== null && input.action === 'create')
      throw new HttpError(409, 'dataset_exists', `A dataset named "${input.name}" already exists.`);
    const result = await uploadDataset(
      deps.store,
      {
        datasetId: existing?.dataset_id ?? null,
        name: input.name,
        description: input.description,
        chunks: input.chunks,
        spoolDir: tmpdir(),
      },
      context,
    );
    // The read model takes a large upload in as one batch: allow it time in proportion (100,000 examples: ~65 s).
    await settle(result, { timeoutMs: 5_000 + result.staged * 0.6 });
    if (!sync) return null;
    const dataset = await findDataset(deps.pool, { datasetId: result.datasetId });
    const version =
      (await findDatasetVersion(deps.pool, { versionId: result.versionId })) ??
      (await findDatasetVersion(deps.pool, { latestOf: result.datasetId }));
    if (dataset === null || version === null) throw new HttpError(404, 'dataset_not_found', `Dataset ${shown(input.name)} not found`);
    return {
      data: {
        dataset_id: datasetGid(dataset.id),
        version_id: versionGid(version.id),
        num_created_examples: version.version_id === result.versionId ? await countCreatedExamples(deps.pool, version.id) : 0,
        num_updated_examples: 0,
        num_deleted_examples: 0,
      },
    };
  } catch (error) {
    // Whatever was left of the body is drained, so the answer reaches the client.
    body.stream.resume();
    throw error;
  }
};

/** The reference's `datasets` routes for datasets, versions, examples and uploads. */
export const datasetRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/datasets',
      query: z.object({ cursor: single, name: single, limit: limitParam(10) }),
      responses: { 200: pageOf(datasetSchema) },
      handler: async ({ query: q }) => {
        return page(
          await listDatasets(deps.pool, { cursor: cursorOf(q.cursor), limit: q.limit, name: q.name ?? null }),
          q.limit,
          byRowid('Dataset'),
          datasetJson,
        );
      },
    }),
    route({
      method: 'POST',
      path: '/v1/datasets/upload',
      query: z.object({ sync: boolParam(false) }),
      body: 'raw',
      responses: { 200: uploadAnswer },
      handler: (request) => upload(deps, request.query.sync, request),
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id',
      responses: { 200: dataOf(datasetSchema) },
      handler: async ({ params }) => {
        return { data: datasetJson(await datasetById(deps, params.id)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/v1/datasets/:id',
      responses: { 204: NO_CONTENT },
      handler: async ({ command, params, context }) => {
        const dataset = await datasetById(deps, params.id);
        await command(() => changeDataset(deps.store, { type: 'DeleteDataset', datasetId: dataset.dataset_id }, context));
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id/versions',
      query: z.object({ cursor: single, limit: limitParam(10) }),
      responses: { 200: pageOf(versionWithChangesSchema) },
      handler: async ({ query: q, params }) => {
        const dataset = await datasetById(deps, params.id);
        const rows = await listDatasetVersions(deps.pool, { datasetId: dataset.dataset_id, cursor: cursorOf(q.cursor), limit: q.limit });
        return page(rows, q.limit, byRowid('DatasetVersion'), versionWithChangesJson);
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id/examples',
      query: z.object({ version_id: single, split: repeated }),
      responses: { 200: dataOf(examplesSchema) },
      handler: async ({ query: q, params }) => {
        const dataset = await datasetById(deps, params.id);
        const version = await versionOf(deps, dataset, q.version_id);
        const splits = await splitsOf(deps, dataset.dataset_id, q.split);
        const rows = await examplesAtVersion(deps.pool, { datasetId: dataset.dataset_id, versionRow: version.id, splitIds: splits.ids });
        return {
          data: {
            dataset_id: datasetGid(dataset.id),
            version_id: versionGid(version.id),
            filtered_splits: splits.names,
            examples: rows.map(exampleJson),
          },
        };
      },
    }),
  ];
};

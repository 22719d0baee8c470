import { Readable } from 'node:stream';
import { z } from 'zod';
import { examplesAtVersion, type DatasetExampleRow } from '../../../projections/datasets/datasetQueries.ts';
import type { AppDeps } from '../../appDeps.ts';
import { attachmentNamed, raw, rawBody } from '../../http/answer.ts';
import { routeKit } from '../../http/restRoute.ts';
import type { RouteDef } from '../../http/route.ts';
import { single } from '../../http/queryParams.ts';
import { exampleGid } from './datasetJson.ts';
import { datasetById, versionOf } from './resolveDataset.ts';

const PAGE = 1000;

type Target = { readonly datasetId: string; readonly versionRow: number; readonly name: string };

/** The examples at the version, a page at a time: an export of 100,000 examples is never built whole. */
async function* examplePages(deps: AppDeps, t: Target): AsyncGenerator<readonly DatasetExampleRow[]> {
  for (let after: number | null = null; ; ) {
    const rows = await examplesAtVersion(deps.pool, { datasetId: t.datasetId, versionRow: t.versionRow, afterRow: after, limit: PAGE });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}

const versionQuery = z.object({ version_id: single });

const target = async (deps: AppDeps, id: string, versionId: string | undefined): Promise<Target> => {
  const dataset = await datasetById(deps, id);
  const version = await versionOf(deps, dataset, versionId);
  return { datasetId: dataset.dataset_id, versionRow: version.id, name: dataset.name };
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const messages = (v: unknown): unknown[] => (isRecord(v) && Array.isArray(v.messages) ? v.messages : []);

const lines = (deps: AppDeps, t: Target, render: (row: DatasetExampleRow) => unknown): Readable =>
  Readable.from(
    (async function* () {
      for await (const page of examplePages(deps, t)) yield page.map((r) => `${JSON.stringify(render(r))}\n`).join('');
    })(),
  );

/** A download of the examples: its bytes streamed, named after the dataset. */
const download = (t: Target, ext: string, type: string, body: Readable) =>
  raw({ type, body, headers: attachmentNamed(`${t.name}.${ext}`) });

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** Dotted columns of an object's leaves (`a.b`); lists and scalars are leaves. */
const flatten = (prefix: string, v: unknown, out: Map<string, unknown>): void => {
  if (isRecord(v) && Object.keys(v).length > 0) for (const [k, x] of Object.entries(v)) flatten(`${prefix}.${k}`, x, out);
  else if (!isRecord(v)) out.set(prefix, v);
};

const flatRow = (r: DatasetExampleRow): Map<string, unknown> => {
  const out = new Map<string, unknown>();
  flatten('input', r.input, out);
  flatten('output', r.output, out);
  flatten('metadata', r.metadata, out);
  return out;
};

/** The exports of the reference's `datasets` tag: CSV, JSONL, and the two OpenAI JSONL shapes. */
export const datasetExportRoutes = (deps: AppDeps): RouteDef[] => {
  const route = routeKit(deps);
  return [
    route({
      method: 'GET',
      path: '/v1/datasets/:id/csv',
      query: versionQuery,
      responses: { 200: rawBody('text/csv') },
      handler: async ({ params, query }) => {
        const t = await target(deps, params.id, query.version_id);
        // Columns need every example's keys: a first pass reads only them, a second streams the rows.
        const columns = new Set<string>();
        let anySplits = false;
        for await (const page of examplePages(deps, t))
          for (const r of page) {
            for (const k of flatRow(r).keys()) columns.add(k);
            anySplits ||= r.splits.length > 0;
          }
        const sorted = [...columns].sort();
        const header = ['id', 'node_id', ...sorted, ...(anySplits ? ['splits'] : [])];
        return download(
          t,
          'csv',
          'text/csv',
          Readable.from(
            (async function* () {
              yield `${header.map(csvCell).join(',')}\n`;
              for await (const page of examplePages(deps, t))
                yield page
                  .map((r) => {
                    const flat = flatRow(r);
                    const cells = [
                      r.external_id ?? exampleGid(r.id),
                      exampleGid(r.id),
                      ...sorted.map((c) => flat.get(c)),
                      ...(anySplits ? [r.splits] : []),
                    ];
                    return `${cells.map(csvCell).join(',')}\n`;
                  })
                  .join('');
            })(),
          ),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id/jsonl',
      query: versionQuery,
      responses: { 200: rawBody('application/jsonl') },
      handler: async ({ params, query }) => {
        const t = await target(deps, params.id, query.version_id);
        return download(
          t,
          'jsonl',
          'application/jsonl',
          lines(deps, t, (r) => ({
            id: r.external_id ?? exampleGid(r.id),
            node_id: exampleGid(r.id),
            input: r.input,
            output: r.output,
            metadata: r.metadata,
            splits: r.splits,
          })),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id/jsonl/openai_ft',
      query: versionQuery,
      responses: { 200: rawBody('application/jsonl') },
      handler: async ({ params, query }) => {
        const t = await target(deps, params.id, query.version_id);
        return download(
          t,
          'jsonl',
          'application/jsonl',
          lines(deps, t, (r) => ({
            messages: [...messages(r.input), ...messages(r.output)],
            ...(isRecord(r.input) && Array.isArray(r.input.tools) ? { tools: r.input.tools } : {}),
          })),
        );
      },
    }),
    route({
      method: 'GET',
      path: '/v1/datasets/:id/jsonl/openai_evals',
      query: versionQuery,
      responses: { 200: rawBody('application/jsonl') },
      handler: async ({ params, query }) => {
        const t = await target(deps, params.id, query.version_id);
        return download(
          t,
          'jsonl',
          'application/jsonl',
          lines(deps, t, (r) => {
            const last = messages(r.output).at(-1);
            return { messages: messages(r.input), ideal: isRecord(last) && typeof last.content === 'string' ? last.content : '' };
          }),
        );
      },
    }),
  ];
};

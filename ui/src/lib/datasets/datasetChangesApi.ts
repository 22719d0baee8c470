import { http } from '../api/http.ts';

/**
 * Changing a dataset's examples (each change is a new version) and reading what a version changed:
 * Loupe's routes for what the reference does over GraphQL.
 */

export type ExampleContent = {
  readonly input: Record<string, unknown>;
  readonly output: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
};

export type ExamplePatch = { readonly id: string } & Partial<ExampleContent>;

export type VersionMade = {
  readonly version_id: string;
  readonly num_updated_examples: number;
  readonly num_deleted_examples: number;
};

const path = (id: string, rest: string) => `/v1/datasets/${encodeURIComponent(id)}${rest}`;

/** One new version patching and deleting examples (ids are the examples' `node_id`s). */
export const changeExamples = async (
  datasetId: string,
  change: { readonly patch?: readonly ExamplePatch[]; readonly delete?: readonly string[]; readonly description?: string | null },
): Promise<VersionMade> =>
  (
    await http<{ data: VersionMade }>(path(datasetId, '/versions'), {
      method: 'POST',
      json: { patch: change.patch ?? [], delete: change.delete ?? [], description: change.description ?? null },
    })
  ).data;

export type ExampleChange = {
  readonly id: string;
  readonly node_id: string;
  readonly kind: 'created' | 'patched' | 'deleted';
  readonly input: unknown;
  readonly output: unknown;
  readonly metadata: unknown;
  /** For a patch: the content before it. */
  readonly before: { readonly input: unknown; readonly output: unknown; readonly metadata: unknown } | null;
};

export type VersionChanges = {
  readonly version_id: string;
  readonly num_created_examples: number;
  readonly num_updated_examples: number;
  readonly num_deleted_examples: number;
  readonly changes: readonly ExampleChange[];
  /** More changes than shown. */
  readonly more: boolean;
};

export const fetchVersionChanges = async (datasetId: string, versionId: string, signal?: AbortSignal): Promise<VersionChanges> => {
  const page = await http<{ data: Omit<VersionChanges, 'more'>; next_cursor: string | null }>(
    path(datasetId, `/versions/${encodeURIComponent(versionId)}/changes`),
    { query: { limit: 200 }, signal },
  );
  return { ...page.data, more: page.next_cursor !== null };
};

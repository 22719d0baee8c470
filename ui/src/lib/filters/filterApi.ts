import { gql } from '../api/graphql.ts';

export type FilterSubject = 'span' | 'trace' | 'session';

export type FilterCheck = { valid: boolean; position: number | null; expected: string | null; message: string | null };

/** Reads a condition on the server (the one parser) without running it: errors show as they are typed. */
export const checkFilterCondition = async (subject: FilterSubject, condition: string, signal?: AbortSignal): Promise<FilterCheck> =>
  (
    await gql<{ filterConditionCheck: FilterCheck }>(
      `query FilterCheck($subject: FilterSubject!, $condition: String!) {
        filterConditionCheck(subject: $subject, condition: $condition) { valid position expected message }
      }`,
      { subject, condition },
      signal,
    )
  ).filterConditionCheck;

/** The subject's field names and the project's recent attribute keys, for completion. */
export const fetchFilterVocabulary = async (
  subject: FilterSubject,
  projectId: string,
  signal?: AbortSignal,
): Promise<{ fields: string[]; attributeKeys: string[] }> => {
  const reply = await gql<{ filterFields: string[]; node: { spanAttributeKeys: string[] } | null }>(
    `query FilterVocabulary($subject: FilterSubject!, $id: ID!) {
      filterFields(subject: $subject)
      node(id: $id) { ... on Project { spanAttributeKeys(first: 300) } }
    }`,
    { subject, id: projectId },
    signal,
  );
  return { fields: reply.filterFields, attributeKeys: reply.node?.spanAttributeKeys ?? [] };
};

export type SavedFilter = { id: string; name: string; subject: FilterSubject; condition: string; search: string };

export const fetchSavedFilters = async (projectId: string, subject: FilterSubject, signal?: AbortSignal): Promise<SavedFilter[]> =>
  (
    await gql<{ node: { savedFilters: SavedFilter[] } | null }>(
      `query SavedFilters($id: ID!, $subject: FilterSubject) {
        node(id: $id) { ... on Project { savedFilters(subject: $subject) { id name subject condition search } } }
      }`,
      { id: projectId, subject },
      signal,
    )
  ).node?.savedFilters ?? [];

export const saveFilter = async (input: { projectId: string; name: string; subject: FilterSubject; condition: string; search: string }) =>
  (
    await gql<{ saveFilter: SavedFilter }>(
      `mutation SaveFilter($input: SaveFilterInput!) { saveFilter(input: $input) { id name subject condition search } }`,
      { input },
    )
  ).saveFilter;

export const deleteSavedFilter = async (id: string): Promise<void> => {
  await gql(`mutation DeleteSavedFilter($id: ID!) { deleteSavedFilter(id: $id) { deletedIds } }`, { id });
};

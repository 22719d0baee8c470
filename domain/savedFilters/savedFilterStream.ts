/** One stream per project: a project's saved filters are decided together (names are unique in it). */
export const savedFilterStream = (projectId: string): string => `saved-filters-${projectId}`;

import { gql } from '../api/graphql.ts';
import { http } from '../api/http.ts';
import type { TimeRange } from '../time/timeRange.ts';

export type ProjectSummary = {
  readonly traceCount: number;
  readonly spanCount: number;
  readonly latencyMsP50: number | null;
  readonly latencyMsP99: number | null;
  readonly tokenCountPrompt: number;
  readonly tokenCountCompletion: number;
  readonly tokenCountTotal: number;
  readonly errorRate: number;
  readonly cost: { readonly total: number } | null;
  readonly lastActivityAt: string | null;
};

export type Project = {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
  /** Seen only by admins, system keys and the users granted a role on it. */
  readonly restricted: boolean;
  readonly summary: ProjectSummary;
};

const PROJECTS = `
  query ProjectsPage($after: String, $timeRange: TimeRange, $includeExperimentProjects: Boolean!) {
    projects(first: 50, after: $after, includeExperimentProjects: $includeExperimentProjects) {
      edges {
        node {
          id name description gradientStartColor gradientEndColor restricted
          summary(timeRange: $timeRange) {
            traceCount spanCount latencyMsP50 latencyMsP99
            tokenCountPrompt tokenCountCompletion tokenCountTotal errorRate lastActivityAt cost { total }
          }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }`;

type ProjectsReply = {
  projects: { edges: { node: Project }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
};

/**
 * Every project with its summary over the range (pages of 50 until the end); the projects
 * experiments fill only when asked for.
 */
export const fetchProjects = async (timeRange: TimeRange, includeExperimentProjects: boolean, signal?: AbortSignal): Promise<Project[]> => {
  const projects: Project[] = [];
  let after: string | null = null;
  do {
    const reply: ProjectsReply = await gql<ProjectsReply>(
      PROJECTS,
      { after, timeRange: { start: timeRange.start, end: timeRange.end }, includeExperimentProjects },
      signal,
    );
    projects.push(...reply.projects.edges.map((edge) => edge.node));
    after = reply.projects.pageInfo.hasNextPage ? reply.projects.pageInfo.endCursor : null;
  } while (after !== null);
  return projects;
};

/** The project's name (the header over its tabs). */
export const fetchProjectName = async (projectId: string, signal?: AbortSignal): Promise<{ id: string; name: string }> => {
  const reply = await gql<{ node: { id: string; name: string } }>(
    `query ProjectName($id: ID!) { node(id: $id) { id ... on Project { name } } }`,
    { id: projectId },
    signal,
  );
  return reply.node;
};

export type ProjectInput = {
  readonly description: string | null;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
  /** Editing only (admins): left out, the project stays as it is. */
  readonly restricted?: boolean;
};

// Writes go through the REST API (the same command handlers as GraphQL's mutations).
export const createProject = (name: string, input: ProjectInput) =>
  http('/v1/projects', {
    method: 'POST',
    json: {
      name,
      description: input.description,
      gradient_start_color: input.gradientStartColor,
      gradient_end_color: input.gradientEndColor,
    },
  });

export const updateProject = (id: string, input: ProjectInput) =>
  http(`/v1/projects/${encodeURIComponent(id)}`, {
    method: 'PUT',
    json: {
      description: input.description ?? '',
      gradient_start_color: input.gradientStartColor,
      gradient_end_color: input.gradientEndColor,
      ...(input.restricted === undefined ? {} : { restricted: input.restricted }),
    },
  });

export const deleteProject = (id: string) => http(`/v1/projects/${encodeURIComponent(id)}`, { method: 'DELETE' });

export const GRANT_ROLES = ['VIEWER', 'ANNOTATOR', 'MEMBER'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

/** A user's role on a project (their role there once it is restricted). */
export type ProjectGrant = {
  readonly userId: string;
  readonly username: string | null;
  readonly email: string | null;
  readonly role: GrantRole;
};

type GrantJson = { user_id: string; username: string | null; email: string | null; role: GrantRole };

/** The project's grantees (admins only). */
export const fetchProjectGrants = async (projectId: string, signal?: AbortSignal): Promise<ProjectGrant[]> => {
  const reply = await http<{ data: GrantJson[] }>(`/v1/projects/${encodeURIComponent(projectId)}/grants`, { signal });
  return reply.data.map((g) => ({ userId: g.user_id, username: g.username, email: g.email, role: g.role }));
};

export const setProjectGrant = (projectId: string, userId: string, role: GrantRole) =>
  http(`/v1/projects/${encodeURIComponent(projectId)}/grants/${encodeURIComponent(userId)}`, { method: 'PUT', json: { role } });

export const revokeProjectGrant = (projectId: string, userId: string) =>
  http(`/v1/projects/${encodeURIComponent(projectId)}/grants/${encodeURIComponent(userId)}`, { method: 'DELETE' });

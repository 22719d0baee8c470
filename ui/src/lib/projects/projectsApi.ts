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
  readonly summary: ProjectSummary;
};

const PROJECTS = `
  query ProjectsPage($after: String, $timeRange: TimeRange, $includeExperimentProjects: Boolean!) {
    projects(first: 50, after: $after, includeExperimentProjects: $includeExperimentProjects) {
      edges {
        node {
          id name description gradientStartColor gradientEndColor
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

export type ProjectInput = {
  readonly description: string | null;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
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
    },
  });

export const deleteProject = (id: string) => http(`/v1/projects/${encodeURIComponent(id)}`, { method: 'DELETE' });

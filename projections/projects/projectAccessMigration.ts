import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The projects' access part of the tracing read model's migrations (listed, in order, in
 * projections/tracing/tracingMigrations.ts: the projects rows are written with the spans).
 */
export const projectAccessMigration: Migration = {
  // Per-project access (issue 38): a restricted project is seen only by admins, system keys and
  // its grantees. Every request reads these two (projections/projects/projectAccessQueries.ts):
  // the partial index keeps "which projects are restricted" a scan of those few rows.
  id: 'tracing/0010_project_access',
  sql: `
    ALTER TABLE projects ADD COLUMN restricted boolean NOT NULL DEFAULT false;
    CREATE INDEX projects_restricted ON projects (id) WHERE restricted;
    CREATE TABLE project_grants (
      project_id bigint NOT NULL,
      user_id text NOT NULL,
      role text NOT NULL,
      granted_at timestamptz NOT NULL,
      PRIMARY KEY (project_id, user_id)
    );
    CREATE INDEX project_grants_user ON project_grants (user_id);
  `,
};

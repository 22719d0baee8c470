import type { Migration } from '../../domain/eventstore/migration.ts';

/**
 * The evaluation reactor's own state (not a read model: a rebuild never touches it, so a rebuild
 * never judges anything again). `evaluation_scans`: per project evaluator and target, the last span, trace or
 * session row it looked at. `evaluation_jobs`: evaluations waiting to be judged, at most one per
 * (project evaluator, target); a job leaves when its outcome is in the log.
 */
export const evaluationQueueMigrations: readonly Migration[] = [
  {
    id: 'evaluationQueue/0001_tables',
    sql: `
      CREATE TABLE evaluation_scans (attachment_id bigint NOT NULL, target text NOT NULL, after_rowid bigint NOT NULL, PRIMARY KEY (attachment_id, target));
      CREATE TABLE evaluation_jobs (
        attachment_id bigint NOT NULL,
        target text NOT NULL,
        target_id text NOT NULL,
        due_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        -- a worker holds it until then (several processes share the queue)
        claimed_until timestamptz,
        PRIMARY KEY (attachment_id, target, target_id)
      );
      CREATE INDEX evaluation_jobs_due ON evaluation_jobs (due_at);
    `,
  },
  {
    // A trace's or session's activity when it was last looked at: judged once it has been quiet for the delay.
    id: 'evaluationQueue/0002_activity',
    sql: `ALTER TABLE evaluation_jobs ADD COLUMN activity text;`,
  },
];

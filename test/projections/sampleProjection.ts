import { sql } from 'slonik';
import type { Projection } from '../../projections/projection.ts';

/**
 * A small read model for runner tests: one row per event (idempotent), the newest type per
 * stream, and a deliberately NON-idempotent apply counter that exposes any double application.
 */
export const sampleProjection: Projection = {
  name: 'sample',
  tables: ['sample_events', 'sample_streams', 'sample_applies'],
  migrations: [
    {
      id: 'sample/0001',
      sql: `
        CREATE TABLE sample_events (event_id uuid PRIMARY KEY, stream text NOT NULL, type text NOT NULL, n int);
        CREATE INDEX sample_events_stream ON sample_events (stream);
        CREATE TABLE sample_streams (stream text PRIMARY KEY, last_type text NOT NULL, revision int NOT NULL);
        CREATE TABLE sample_applies (id int PRIMARY KEY, count int NOT NULL);
        INSERT INTO sample_applies VALUES (1, 0);
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const e of events) {
      const n = (e.data as { n?: number }).n ?? null;
      await tx.query(sql.unsafe`INSERT INTO sample_events VALUES (${e.id}, ${e.stream}, ${e.type}, ${n}) ON CONFLICT DO NOTHING`);
      await tx.query(sql.unsafe`
        INSERT INTO sample_streams VALUES (${e.stream}, ${e.type}, ${e.revision})
        ON CONFLICT (stream) DO UPDATE SET last_type = excluded.last_type, revision = excluded.revision
        WHERE sample_streams.revision < excluded.revision`);
    }
    await tx.query(sql.unsafe`UPDATE sample_applies SET count = count + ${events.length} WHERE id = 1`);
  },
};

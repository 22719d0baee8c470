import { sql } from 'slonik';
import { loupeEvent } from '../../domain/loupeEvent.ts';
import type { Projection } from '../projection.ts';

/** A project's saved filters, for the filter bar's menu. They go with their project. */
export const savedFiltersProjection: Projection = {
  name: 'saved_filters',
  tables: ['saved_filters'],
  eventTypes: ['SavedFilterSaved', 'SavedFilterDeleted', 'ProjectDeleted'],
  migrations: [
    {
      id: 'saved_filters/0001_saved_filters',
      sql: `
        CREATE TABLE saved_filters (
          filter_id text PRIMARY KEY,
          project_id uuid NOT NULL,
          name text NOT NULL,
          subject text NOT NULL,
          condition text NOT NULL,
          search text NOT NULL,
          -- global position (seq) of the last save: newest first in the menu
          ordinal bigint NOT NULL
        );
        CREATE INDEX saved_filters_project ON saved_filters (project_id, subject, ordinal DESC);
      `,
    },
  ],
  apply: async (tx, events) => {
    for (const stored of events) {
      const event = loupeEvent(stored);
      switch (event.type) {
        case 'SavedFilterSaved': {
          const d = event.data;
          await tx.query(sql.unsafe`
            INSERT INTO saved_filters (filter_id, project_id, name, subject, condition, search, ordinal)
            VALUES (${d.filterId}, ${d.projectId}::uuid, ${d.name}, ${d.subject}, ${d.condition}, ${d.search}, ${stored.position.seq})
            ON CONFLICT (filter_id) DO UPDATE SET condition = EXCLUDED.condition, search = EXCLUDED.search, ordinal = EXCLUDED.ordinal`);
          break;
        }
        case 'SavedFilterDeleted':
          await tx.query(sql.unsafe`DELETE FROM saved_filters WHERE filter_id = ${event.data.filterId}`);
          break;
        case 'ProjectDeleted':
          await tx.query(sql.unsafe`DELETE FROM saved_filters WHERE project_id = ${event.data.projectId}::uuid`);
          break;
      }
    }
  },
};

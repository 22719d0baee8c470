import { sql } from 'slonik';
import type { Projection } from '../../projections/projection.ts';

/**
 * A test read model that stores each `NoteTaken` note in a text column, so a note holding NUL
 * fails inside the database exactly as a real poison event does (`invalid byte sequence for
 * encoding "UTF8": 0x00`). `strip: true` is the "fixed" version of the same read model.
 */
export const fragileProjection = (options: { readonly strip?: boolean } = {}): Projection => ({
  name: 'fragile',
  tables: ['fragile_notes'],
  eventTypes: ['NoteTaken'],
  migrations: [
    {
      id: 'fragile/0001',
      sql: `CREATE TABLE fragile_notes (event_id uuid PRIMARY KEY, note text NOT NULL);`,
    },
  ],
  apply: async (tx, events) => {
    for (const e of events) {
      if (e.type !== 'NoteTaken') continue;
      const note = String((e.data as { note: string }).note);
      await tx.query(sql.unsafe`
        INSERT INTO fragile_notes VALUES (${e.id}, ${options.strip ? note.replace(/\u0000/g, '') : note}) ON CONFLICT DO NOTHING`);
    }
  },
});

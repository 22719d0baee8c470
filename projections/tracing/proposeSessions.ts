import { sql, type DatabaseTransactionConnection } from 'slonik';
import { z } from 'zod';

/** A session row as a span batch first writes it (its times are placeholders until recomputed). */
export type SessionRow = { id: number; session_id: string; project_id: number; start_time: string; end_time: string };

const storedSession = z.object({ id: z.bigint(), session_id: z.string() });

/**
 * The row ids of these sessions, creating the ones not stored. Each proposal carries the earliest
 * candidate this batch has for its session (the row id of its first trace link, in log order).
 * A session is the row of its earliest candidate, as one chain applying the log would make it:
 * tracing partitions apply traces of one session concurrently and in any order, so a partition
 * that meets an earlier candidate than the stored row's moves the row (and its traces) to that id
 * and project. With one partition a stored row is always the earlier one and nothing moves.
 *
 * Every partition takes the rows' locks in session id order (insert, then lock), so two of them
 * proposing the same sessions wait for each other instead of deadlocking; the lock is held until
 * commit, which also orders their `recomputeSessions`.
 */
export const proposeSessions = async (
  tx: DatabaseTransactionConnection,
  proposals: readonly SessionRow[],
): Promise<Map<string, number>> => {
  if (proposals.length === 0) return new Map();
  const sorted = [...proposals].sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0));
  await tx.query(sql.unsafe`
    INSERT INTO sessions (id, session_id, project_id, start_time, end_time)
    SELECT id, session_id, project_id, start_time, end_time
    FROM jsonb_to_recordset(${JSON.stringify(sorted)}::jsonb)
      AS x(id int8, session_id text, project_id int8, start_time timestamptz, end_time timestamptz)
    ORDER BY session_id
    ON CONFLICT (session_id) DO NOTHING`);
  const stored = await tx.any(sql.type(storedSession)`
    SELECT id, session_id FROM sessions WHERE session_id = ANY(${sql.array(
      sorted.map((p) => p.session_id),
      'text',
    )}) ORDER BY session_id FOR UPDATE`);
  const ids = new Map(stored.map((r) => [r.session_id, Number(r.id)]));
  for (const proposal of sorted) {
    const current = ids.get(proposal.session_id);
    // Inserted above or found in its place: only a deletion could take it, and deletions apply alone.
    if (current === undefined) throw new Error(`session ${proposal.session_id} vanished while its traces were linked`);
    if (current <= proposal.id) continue;
    // A later candidate got there first (another partition): the session becomes the earlier one's.
    await tx.query(sql.unsafe`UPDATE sessions SET id = ${proposal.id}, project_id = ${proposal.project_id} WHERE id = ${current}`);
    await tx.query(sql.unsafe`UPDATE traces SET session_id = ${proposal.id} WHERE session_id = ${current}`);
    ids.set(proposal.session_id, proposal.id);
  }
  return ids;
};

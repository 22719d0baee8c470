import { sql, type FragmentSqlToken } from 'slonik';

/**
 * `s.start_time` within the times of the traces `which` picks: true of each of their spans (a
 * trace starts with its earliest span and ends with its latest span's end), and it lets the
 * planner read only the weeks of spans those times cover (spanPartitions.ts: pruned when run).
 */
export const withinTraces = (which: FragmentSqlToken): FragmentSqlToken =>
  sql.fragment`s.start_time >= (SELECT min(start_time) FROM traces WHERE ${which})
    AND s.start_time <= (SELECT max(end_time) FROM traces WHERE ${which})`;

import { sql } from 'slonik';

/** A timestamptz column as exact epoch microseconds (slonik's default parser would keep milliseconds only). */
export const micros = (column: string) => sql.fragment`(extract(epoch FROM ${sql.identifier(column.split('.'))}) * 1000000)::int8`;

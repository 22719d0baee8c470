import type { CommonQueryMethods } from 'slonik';
import { findTraceRetentionPolicy, type TraceRetentionPolicyRow } from '../../../projections/retention/traceRetentionPolicyQueries.ts';
import { HttpError } from '../../http/httpError.ts';
import { policyRowidOf } from './traceRetentionPolicyJson.ts';

/** `{id}`: a ProjectTraceRetentionPolicy GlobalID → its row; 404 naming it otherwise. */
export const resolveTraceRetentionPolicy = async (db: CommonQueryMethods, raw: string): Promise<TraceRetentionPolicyRow> => {
  const rowid = policyRowidOf(raw);
  const policy = rowid === null ? null : await findTraceRetentionPolicy(db, rowid);
  if (policy === null) throw new HttpError(404, 'trace_retention_policy_not_found', `Trace retention policy ${raw} not found`);
  return policy;
};

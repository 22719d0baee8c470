import { sql } from 'slonik';

/**
 * `annotations a` rows whose target (span, trace or session) is known to be in the project (by
 * its uuid), from this read model's own scope tables. An annotation whose target has not arrived
 * yet is in no project.
 */
export const inProject = (target: 'span' | 'trace' | 'session', projectId: string) => {
  switch (target) {
    case 'span':
      return sql.fragment`EXISTS (SELECT 1 FROM annotation_span_scope sp JOIN annotation_trace_scope t ON t.trace_id = sp.trace_id
        WHERE sp.span_id = a.target_id AND t.project_id = ${projectId})`;
    case 'trace':
      return sql.fragment`EXISTS (SELECT 1 FROM annotation_trace_scope t WHERE t.trace_id = a.target_id AND t.project_id = ${projectId})`;
    case 'session':
      return sql.fragment`EXISTS (SELECT 1 FROM annotation_session_scope s WHERE s.session_id = a.target_id AND s.project_id = ${projectId})`;
  }
};

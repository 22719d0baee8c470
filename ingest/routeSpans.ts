import { stringAttribute, type Attributes } from '../domain/tracing/attributes.ts';
import { projectNameProblem } from '../domain/projects/projectName.ts';
import { buildSpanRecord } from '../domain/tracing/buildSpanRecord.ts';
import { storableText } from '../domain/base/storableText.ts';
import type { SpanBatch, SpanRecord } from '../domain/tracing/events.ts';
import type { ExportRequestInput } from './exportRequest.ts';

export const PROJECT_NAME_HEADER = 'x-project-name';
export const PROJECT_NAME_RESOURCE_KEY = 'openinference.project.name';

export type RoutedSpans = {
  /** One batch per project, in the order projects first appear in the request. */
  readonly batches: readonly SpanBatch[];
  readonly acceptedSpans: number;
  readonly rejectedSpans: number;
  /** Why spans were rejected ('' when none was), for the response's `partial_success`. */
  readonly errorMessage: string;
};

/** Enough reasons to fix a sender, few enough that a bad batch of 10k spans stays a short reply. */
const MAX_REASONS = 10;

const nonBlank = (s: string | null | undefined): string | null => (s && s.trim() !== '' ? s.trim() : null);

/**
 * Validates every span and groups the valid ones by project: the `x-project-name` header wins,
 * then the resource attribute `openinference.project.name`, then the default project.
 * Invalid spans are counted and explained; they never fail the valid ones. The project name gets
 * control characters replaced like every stored string; a name that still cannot be stored (too
 * long for the name index) rejects that resource's spans rather than being cut into another name.
 */
export const routeSpans = (
  request: ExportRequestInput,
  options: { readonly projectHeader: string | null; readonly defaultProjectName: string },
): RoutedSpans => {
  const byProject = new Map<string, { resources: Attributes[]; spans: SpanRecord[] }>();
  const reasons: string[] = [];
  let rejected = 0;
  let accepted = 0;
  for (const [r, rs] of request.entries()) {
    const projectName = storableText(
      nonBlank(options.projectHeader) ??
        nonBlank(stringAttribute(rs.resourceAttributes, PROJECT_NAME_RESOURCE_KEY)) ??
        options.defaultProjectName,
    );
    const nameProblem = projectNameProblem(projectName);
    if (nameProblem !== null) {
      rejected += rs.spans.length;
      if (rs.spans.length > 0 && reasons.length < MAX_REASONS) reasons.push(`resource_spans[${r}]: project name: ${nameProblem}`);
      continue;
    }
    const batch = byProject.get(projectName) ?? { resources: [], spans: [] };
    byProject.set(projectName, batch);
    // The resource is stored once per batch, and only if one of its spans is kept.
    const resourceIndex = batch.resources.length;
    for (const [s, input] of rs.spans.entries()) {
      const result = buildSpanRecord(input, resourceIndex);
      if (result.ok) {
        if (batch.resources.length === resourceIndex) batch.resources.push(rs.resourceAttributes);
        batch.spans.push(result.span);
        accepted++;
      } else {
        rejected++;
        if (reasons.length < MAX_REASONS) reasons.push(`resource_spans[${r}] span ${s}: ${result.reason}`);
      }
    }
  }
  const batches = [...byProject].filter(([, b]) => b.spans.length > 0).map(([projectName, b]) => ({ projectName, ...b }));
  const more = rejected > reasons.length ? `; and ${rejected - reasons.length} more` : '';
  return {
    batches,
    acceptedSpans: accepted,
    rejectedSpans: rejected,
    errorMessage: rejected === 0 ? '' : `${rejected} span(s) rejected: ${reasons.join('; ')}${more}`,
  };
};

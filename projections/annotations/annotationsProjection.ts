import type { AnnotationConfigEvent } from '../../domain/annotations/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { isEventOf } from '../../domain/loupeEvent.ts';
import type { TelemetryDeletionEvent } from '../../domain/tracing/events.ts';
import type { Projection } from '../projection.ts';
import { applyAnnotationConfigEvent } from './applyAnnotationConfigEvent.ts';
import { applyAnnotationsDeleted } from './applyAnnotationsDeleted.ts';
import { applyAnnotationsRecorded } from './applyAnnotationsRecorded.ts';
import { applyAnnotationsRemoved } from './applyAnnotationsRemoved.ts';
import { annotationsMigrations } from './annotationsMigrations.ts';
import { applyProjectScope, recordKeyOwner, recordTargets, removeTargets } from './targetScope.ts';

const CONFIG_EVENTS: readonly AnnotationConfigEvent['type'][] = [
  'AnnotationConfigCreated',
  'AnnotationConfigUpdated',
  'AnnotationConfigDeleted',
  'AnnotationConfigAssigned',
  'AnnotationConfigUnassigned',
];
const TELEMETRY_DELETIONS: readonly TelemetryDeletionEvent['type'][] = ['SpanDeleted', 'TraceDeleted', 'SessionDeleted', 'TracesExpired'];

/**
 * Annotations and notes on spans, documents, traces and sessions, annotation configs and their
 * project assignments. It reads the tracing and project events too, into its own scope tables,
 * so that deleting a span, trace, session or project removes the annotations on it without
 * reading another read model's tables (each model rebuilds alone).
 */
export const annotationsProjection: Projection = {
  name: 'annotations',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: [
    'AnnotationsRecorded',
    'AnnotationsDeleted',
    'AnnotationsRemoved',
    ...CONFIG_EVENTS,
    'SpansIngested',
    ...TELEMETRY_DELETIONS,
    'ProjectCreated',
    'ProjectDeleted',
    'ApiKeyIssued',
  ],
  tables: [
    'annotation_ids',
    'annotation_project_scope',
    'annotation_trace_scope',
    'annotation_span_scope',
    'annotation_session_scope',
    'annotation_key_owners',
    'annotations',
    'annotation_configs',
    'project_annotation_configs',
  ],
  migrations: annotationsMigrations,
  apply: async (tx, events) => {
    let i = 0;
    while (i < events.length) {
      const event = events[i]!;
      if (event.type === 'SpansIngested') {
        const run: StoredEvent[] = [];
        while (i < events.length && events[i]!.type === 'SpansIngested') run.push(events[i++]!);
        await recordTargets(tx, run);
        continue;
      }
      i++;
      if (event.type === 'AnnotationsRecorded') await applyAnnotationsRecorded(tx, event);
      else if (event.type === 'AnnotationsDeleted') await applyAnnotationsDeleted(tx, event);
      else if (event.type === 'AnnotationsRemoved') await applyAnnotationsRemoved(tx, event);
      else if (isEventOf(event, CONFIG_EVENTS)) await applyAnnotationConfigEvent(tx, event);
      else if (isEventOf(event, TELEMETRY_DELETIONS)) await removeTargets(tx, event);
      else if (event.type === 'ProjectCreated' || event.type === 'ProjectDeleted') await applyProjectScope(tx, event);
      else if (event.type === 'ApiKeyIssued') await recordKeyOwner(tx, event);
    }
  },
};

import type { AnnotationRecord } from '../../domain/annotations/events.ts';
import type { DomainEvent } from '../../domain/decider.ts';

/** An annotation as a request records it: a span's LLM "quality" score and label, `over` changing what a test needs. */
export const annotationRecord = (over: Partial<AnnotationRecord> = {}): AnnotationRecord => ({
  target: 'span',
  targetId: 'abc',
  documentPosition: null,
  name: 'quality',
  annotatorKind: 'LLM',
  label: 'good',
  score: 0.5,
  explanation: null,
  metadata: {},
  identifier: '',
  ...over,
});

/** The ProjectCreated the read models need before spans of `projectId` count. */
export const projectCreated = (projectId: string, name: string): DomainEvent => ({
  type: 'ProjectCreated',
  data: { projectId, name, description: null, gradientStartColor: '#000000', gradientEndColor: '#ffffff' },
});

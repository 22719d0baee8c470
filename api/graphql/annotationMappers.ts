import DataLoader from 'dataloader';
import type { DatabasePool } from 'slonik';
import type { AnnotationConfigRow } from '../../projections/annotations/annotationConfigQueries.ts';
import { annotationsOnTargets, type AnnotationRow } from '../../projections/annotations/annotationQueries.ts';
import { annotationConfigJson } from '../rest/annotations/annotationConfigJson.ts';
import { ANNOTATION_TYPE } from '../rest/annotations/annotationJson.ts';
import { userGlobalId } from '../rest/identity/userJson.ts';
import { toGlobalId } from '../http/globalId.ts';
import { isoMicros } from './dateTimeScalar.ts';
import type { GraphqlContext } from './graphqlContext.ts';
import type { Annotation, AnnotationConfig, AnnotationTarget } from './types/annotationTypes.ts';

/** The same global ids as REST (`SpanAnnotation:42`, …), so both surfaces name an annotation alike. */
export const annotationOf = (row: AnnotationRow): Annotation => ({
  id: toGlobalId(ANNOTATION_TYPE[row.target], String(row.id)),
  target: row.target,
  targetId: row.target_id,
  documentPosition: row.document_position,
  name: row.name,
  annotatorKind: row.annotator_kind,
  label: row.label,
  score: row.score,
  explanation: row.explanation,
  metadata: row.metadata,
  identifier: row.identifier,
  source: row.source,
  userId: row.user_id === null ? null : userGlobalId(row.user_id),
  createdAt: isoMicros(row.created_us),
  updatedAt: isoMicros(row.updated_us),
});

export const annotationConfigOf = (row: AnnotationConfigRow): AnnotationConfig => ({
  id: annotationConfigJson(row).id,
  name: row.name,
  type: row.type,
  description: row.description,
  optimizationDirection: row.optimization_direction,
  values: row.values,
  lowerBound: row.lower_bound,
  upperBound: row.upper_bound,
  threshold: row.threshold,
});

type Key = `${AnnotationTarget}\u0000${string}`;
const loaders = new WeakMap<object, DataLoader<Key, AnnotationRow[]>>();

const loaderFor = (pool: DatabasePool) =>
  new DataLoader<Key, AnnotationRow[]>(async (keys) => {
    const byTarget = new Map<AnnotationTarget, string[]>();
    for (const key of keys) {
      const [target, id] = key.split('\u0000') as [AnnotationTarget, string];
      byTarget.set(target, [...(byTarget.get(target) ?? []), id]);
    }
    const found = new Map<Key, AnnotationRow[]>();
    for (const [target, ids] of byTarget)
      for (const row of await annotationsOnTargets(pool, target, ids)) {
        const key: Key = `${target}\u0000${row.target_id}`;
        found.set(key, [...(found.get(key) ?? []), row]);
      }
    return keys.map((k) => found.get(k) ?? []);
  });

/**
 * A page of spans asks for each span's annotations: one query for the whole page (per request,
 * keyed on the request's loaders so nothing is cached across requests).
 */
export const annotationsOf = async (ctx: GraphqlContext, target: AnnotationTarget, targetId: string): Promise<AnnotationRow[]> => {
  let loader = loaders.get(ctx.loaders);
  if (loader === undefined) {
    loader = loaderFor(ctx.deps.pool);
    loaders.set(ctx.loaders, loader);
  }
  return loader.load(`${target}\u0000${targetId}`);
};

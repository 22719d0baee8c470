import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { InvalidAnnotationsError } from '../../../domain/annotations/annotationDecider.ts';
import { NOTE_NAME } from '../../../domain/annotations/annotationRecord.ts';
import type { AnnotationRecord } from '../../../domain/annotations/events.ts';
import { recordAnnotations } from '../../../domain/annotations/recordAnnotations.ts';
import { removeAnnotations } from '../../../domain/annotations/removeAnnotations.ts';
import { actingUserId, isAdmin } from '../../../domain/access/principal.ts';
import type { JsonObject } from '../../../domain/base/jsonValue.ts';
import { annotationKey } from '../../../domain/annotations/annotationKey.ts';
import {
  annotationIdsByKey,
  annotationsByIds,
  type AnnotationRow,
  targetProjectRowids,
} from '../../../projections/annotations/annotationQueries.ts';
import { fromGlobalId } from '../../http/globalId.ts';
import { ANNOTATION_TYPE } from '../../rest/annotations/annotationJson.ts';
import { noteFromJson } from '../../rest/annotations/annotationJson.ts';
import { annotationOf } from '../annotationMappers.ts';
import type { GraphqlContext } from '../graphqlContext.ts';
import { gqlError } from '../graphqlError.ts';
import { Requires, requireProjectOf } from '../requires.ts';
import { Annotation, AnnotationInput, AnnotationPatch, AnnotationTarget } from '../types/annotationTypes.ts';
import { DeletionPayload } from '../deletionPayload.ts';

const MAX = 1000;

const SCOPE = { span: 'span', document: 'span', trace: 'trace', session: 'session' } as const;

/**
 * The project dimension of `annotate` for every project the targets are in (as REST's
 * requireTargetProjects): a target in a hidden project is not found, a role there without
 * `annotate` is refused; targets not received yet answer to the global table.
 */
const requireTargetProjects = async (
  ctx: GraphqlContext,
  targets: readonly { readonly target: AnnotationRecord['target']; readonly targetId: string }[],
): Promise<void> => {
  const notFound = () => gqlError('target_not_found', 'An annotation target does not exist', 404);
  let any = false;
  for (const scope of ['span', 'trace', 'session'] as const) {
    const ids = targets.filter((t) => SCOPE[t.target] === scope).map((t) => t.targetId);
    if (ids.length === 0) continue;
    for (const rowid of await targetProjectRowids(ctx.deps.pool, scope, ids)) {
      any = true;
      requireProjectOf(ctx, rowid, 'annotate', notFound);
    }
  }
  if (!any) requireProjectOf(ctx, null, 'annotate', notFound);
};

/** Records through the same command as REST (source APP); the rows as the read model then shows them. */
const record = async (
  ctx: GraphqlContext,
  annotations: readonly AnnotationRecord[],
  asNotes: boolean,
  argument: string,
): Promise<Annotation[]> => {
  if (annotations.length > MAX) throw gqlError('invalid_input', `Argument "${argument}": at most ${MAX} at once`);
  await requireTargetProjects(ctx, annotations);
  let position: Awaited<ReturnType<typeof recordAnnotations>>;
  try {
    position = await recordAnnotations(ctx.deps.store, { type: 'RecordAnnotations', source: 'APP', annotations, asNotes }, ctx.command);
  } catch (error) {
    if (!(error instanceof InvalidAnnotationsError)) throw error;
    const detail = error.problems
      .map(({ index, problem }) => `${argument}.${index}.${problem.path.join('.')}: ${problem.message}`)
      .slice(0, 5);
    throw gqlError('invalid_annotation', detail.join('; '), 422);
  }
  await ctx.settle(position);
  const ids = await annotationIdsByKey(ctx.deps.pool, annotations.map(annotationKey));
  const rows = await annotationsByIds(ctx.deps.pool, [...ids.values()]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return annotations.flatMap((a) => {
    const row = byId.get(ids.get(annotationKey(a)) ?? -1);
    return row === undefined ? [] : [annotationOf(row)];
  });
};

/** Annotations by global id; every id must name one (a missing one is a 404 naming it). */
const loadAll = async (ctx: GraphqlContext, ids: readonly string[], argument: string): Promise<AnnotationRow[]> => {
  if (ids.length > MAX) throw gqlError('invalid_input', `Argument "${argument}": at most ${MAX} ids at once`);
  const rowids = ids.map((id, i) => {
    for (const type of Object.values(ANNOTATION_TYPE)) {
      const raw = fromGlobalId(type, id);
      if (raw !== null && /^\d{1,15}$/.test(raw)) return Number(raw);
    }
    throw gqlError('invalid_input', `Argument "${argument}.${i}": not an annotation id`, 422);
  });
  const rows = await annotationsByIds(ctx.deps.pool, rowids);
  const found = new Set(rows.map((row) => row.id));
  const missing = rowids.findIndex((r) => !found.has(r));
  if (missing >= 0) throw gqlError('annotation_not_found', `Argument "${argument}.${missing}": no annotation ${ids[missing]}`, 404);
  return [...rows];
};

const mine = (ctx: GraphqlContext, row: AnnotationRow): boolean => row.user_id === actingUserId(ctx.principal);

@Resolver()
export class AnnotationMutations {
  @Mutation(() => [Annotation], {
    description: 'Records annotations (one event); the same (target, name, identifier) replaces the earlier one',
  })
  @Requires('annotate')
  async createAnnotations(
    @Ctx() ctx: GraphqlContext,
    @Arg('input', () => [AnnotationInput]) input: AnnotationInput[],
  ): Promise<Annotation[]> {
    const annotations = input.map(
      (i): AnnotationRecord => ({
        target: i.target,
        targetId: i.targetId.trim(),
        documentPosition: i.documentPosition ?? null,
        name: i.name,
        annotatorKind: i.annotatorKind,
        label: i.label ?? null,
        score: i.score ?? null,
        explanation: i.explanation ?? null,
        metadata: (i.metadata ?? {}) as JsonObject,
        identifier: i.identifier,
      }),
    );
    return record(ctx, annotations, false, 'input');
  }

  @Mutation(() => Annotation, { description: 'Adds a note (every call adds one)' })
  @Requires('annotate')
  async createNote(
    @Ctx() ctx: GraphqlContext,
    @Arg('target', () => AnnotationTarget) target: AnnotationTarget,
    @Arg('targetId', () => ID) targetId: string,
    @Arg('note', () => String) note: string,
  ): Promise<Annotation> {
    if (target === 'document') throw gqlError('invalid_input', 'Argument "target": documents take no notes', 422);
    if (note.trim() === '') throw gqlError('invalid_input', 'Argument "note": must not be empty', 422);
    const key = { span: 'span_id', trace: 'trace_id', session: 'session_id' }[target];
    const [created] = await record(ctx, [noteFromJson(target, { [key]: targetId.trim(), note: note.trim() })], true, 'note');
    return created!;
  }

  @Mutation(() => [Annotation], { description: 'Changes one’s own annotations (only the fields given)' })
  @Requires('annotate')
  async patchAnnotations(
    @Ctx() ctx: GraphqlContext,
    @Arg('patches', () => [AnnotationPatch]) patches: AnnotationPatch[],
  ): Promise<Annotation[]> {
    const rows = await loadAll(
      ctx,
      patches.map((p) => p.id),
      'patches',
    );
    const byId = new Map(rows.map((r) => [annotationOf(r).id, r]));
    const annotations = patches.map((p, i): AnnotationRecord => {
      const row = byId.get(p.id)!;
      if (!mine(ctx, row)) throw gqlError('forbidden', `Argument "patches.${i}": only its author may change an annotation`, 403);
      return {
        target: row.target,
        targetId: row.target_id,
        documentPosition: row.document_position,
        name: row.name,
        annotatorKind: row.annotator_kind,
        label: p.label !== undefined ? p.label : row.label,
        score: p.score !== undefined ? p.score : row.score,
        explanation: p.explanation !== undefined ? p.explanation : row.explanation,
        metadata: (p.metadata !== undefined && p.metadata !== null ? p.metadata : row.metadata) as JsonObject,
        identifier: row.identifier,
      };
    });
    return record(
      ctx,
      annotations,
      annotations.every((a) => a.name === NOTE_NAME),
      'patches',
    );
  }

  @Mutation(() => DeletionPayload, { description: 'Deletes annotations by id: one’s own, or any for an admin' })
  @Requires('annotate')
  async deleteAnnotations(@Ctx() ctx: GraphqlContext, @Arg('ids', () => [ID]) ids: string[]): Promise<DeletionPayload> {
    const rows = await loadAll(ctx, ids, 'ids');
    await requireTargetProjects(
      ctx,
      rows.map((r) => ({ target: r.target, targetId: r.target_id })),
    );
    const admin = isAdmin(ctx.principal);
    rows.forEach((row, i) => {
      if (!admin && !mine(ctx, row))
        throw gqlError('forbidden', `Argument "ids.${i}": only its author or an admin may delete an annotation`, 403);
    });
    const position = await removeAnnotations(
      ctx.deps.store,
      rows.map((r) => ({
        target: r.target,
        targetId: r.target_id,
        documentPosition: r.document_position,
        name: r.name,
        identifier: r.identifier,
      })),
      ctx.command,
    );
    await ctx.settle(position);
    return { deletedIds: rows.map((r) => annotationOf(r).id) };
  }
}

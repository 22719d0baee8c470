import { sql, type DatabaseTransactionConnection } from 'slonik';
import type { AnnotationConfigData } from '../../domain/annotations/annotationConfig.ts';
import type { AnnotationConfigEvent } from '../../domain/annotations/events.ts';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { clippedText, MESSAGE_MAX_BYTES, storableName } from '../../domain/base/storableText.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const TYPES = new Set(['CATEGORICAL', 'CONTINUOUS', 'FREEFORM']);

/** A config's columns, every field made storable (the decider refuses bad ones; a crafted event is coerced). */
const columns = (raw: unknown) => {
  const c = (raw ?? {}) as Partial<Record<string, unknown>> & Partial<AnnotationConfigData>;
  const values = Array.isArray(c.values)
    ? c.values.map((v: unknown) => {
        const value = (v ?? {}) as { label?: unknown; score?: unknown };
        return { label: storableName(typeof value.label === 'string' ? value.label : ''), score: num(value.score) };
      })
    : null;
  return {
    name: storableName(typeof c.name === 'string' ? c.name : ''),
    type: typeof c.type === 'string' && TYPES.has(c.type) ? c.type : 'FREEFORM',
    description: typeof c.description === 'string' ? clippedText(c.description, MESSAGE_MAX_BYTES) : null,
    direction: typeof c.optimizationDirection === 'string' ? storableName(c.optimizationDirection) : null,
    values: c.type === 'CATEGORICAL' ? sql.jsonb(values ?? []) : null,
    lower: num((c as { lowerBound?: unknown }).lowerBound),
    upper: num((c as { upperBound?: unknown }).upperBound),
    threshold: num((c as { threshold?: unknown }).threshold),
  };
};

/** Configs and their project assignments. A name clash (only in a crafted event) leaves the rows as they were. */
export const applyAnnotationConfigEvent = async (
  tx: DatabaseTransactionConnection,
  event: StoredEvent & AnnotationConfigEvent,
): Promise<void> => {
  const configId = num(event.data?.configId);
  if (configId === null || !Number.isSafeInteger(configId)) return;
  switch (event.type) {
    case 'AnnotationConfigCreated': {
      const c = columns(event.data.config);
      await tx.query(sql.unsafe`
        INSERT INTO annotation_configs (id, name, type, description, optimization_direction, "values", lower_bound, upper_bound, threshold)
        VALUES (${configId}, ${c.name}, ${c.type}, ${c.description}, ${c.direction}, ${c.values}, ${c.lower}, ${c.upper}, ${c.threshold})
        ON CONFLICT DO NOTHING`);
      return;
    }
    case 'AnnotationConfigUpdated': {
      const c = columns(event.data.config);
      await tx.query(sql.unsafe`
        UPDATE annotation_configs SET name = ${c.name}, type = ${c.type}, description = ${c.description},
          optimization_direction = ${c.direction}, "values" = ${c.values}, lower_bound = ${c.lower}, upper_bound = ${c.upper},
          threshold = ${c.threshold}
        WHERE id = ${configId} AND NOT EXISTS (SELECT 1 FROM annotation_configs o WHERE o.name = ${c.name} AND o.id <> ${configId})`);
      return;
    }
    case 'AnnotationConfigDeleted':
      await tx.query(sql.unsafe`DELETE FROM project_annotation_configs WHERE config_id = ${configId}`);
      await tx.query(sql.unsafe`DELETE FROM annotation_configs WHERE id = ${configId}`);
      return;
    case 'AnnotationConfigAssigned':
    case 'AnnotationConfigUnassigned': {
      const projectId =
        typeof event.data.projectId === 'string' && UUID.test(event.data.projectId) ? event.data.projectId.toLowerCase() : null;
      if (projectId === null) return;
      if (event.type === 'AnnotationConfigUnassigned') {
        await tx.query(sql.unsafe`DELETE FROM project_annotation_configs WHERE project_id = ${projectId} AND config_id = ${configId}`);
        return;
      }
      // Only a live project and an existing config: a late event for either must not leave a dangling row.
      await tx.query(sql.unsafe`
        INSERT INTO project_annotation_configs (project_id, config_id)
        SELECT ${projectId}, ${configId}
        WHERE EXISTS (SELECT 1 FROM annotation_project_scope WHERE project_id = ${projectId})
          AND EXISTS (SELECT 1 FROM annotation_configs WHERE id = ${configId})
        ON CONFLICT DO NOTHING`);
      return;
    }
  }
};

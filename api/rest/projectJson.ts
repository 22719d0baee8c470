import type { ProjectRow } from '../../projections/tracing/projectQueries.ts';
import { globalIdOf } from './tracingIds.ts';

/** Phoenix's `Project`: id, name, description (no timestamps, no colours). */
export const projectJson = (p: ProjectRow) => ({ id: globalIdOf('Project', p.id), name: p.name, description: p.description });

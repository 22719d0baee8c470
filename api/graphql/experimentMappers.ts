import type { ExperimentRow } from '../../projections/experiments/experimentQueries.ts';
import { toGlobalId } from '../http/globalId.ts';
import { isoMicros } from './dateTimeScalar.ts';
import { costOf } from './tracingMappers.ts';
import { Experiment } from './types/experimentTypes.ts';

/** The same GlobalID REST answers with. */
export const experimentOf = (row: ExperimentRow): Experiment =>
  Object.assign(new Experiment(), {
    id: toGlobalId('Experiment', String(row.id)),
    experimentUuid: row.experiment_id,
    datasetRowid: row.dataset_rowid,
    versionRowid: row.version_rowid,
    name: row.name,
    description: row.description,
    projectName: row.project_name,
    repetitions: row.repetitions,
    metadata: row.metadata ?? {},
    createdAt: isoMicros(row.created_us),
    updatedAt: isoMicros(row.updated_us),
    runCount: row.successful_run_count + row.failed_run_count,
    errorRunCount: row.failed_run_count,
    expectedRunCount: row.example_count * row.repetitions,
    cost: costOf(row),
  });

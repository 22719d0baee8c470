import { NAME_MAX_BYTES, storableText } from '../base/storableText.ts';
import { NOTE_NAME } from './annotationRecord.ts';
import type { AnnotationConfigData, OptimizationDirection } from './events.ts';

export type { AnnotationConfigData, AnnotationConfigType, OptimizationDirection } from './events.ts';

export const OPTIMIZATION_DIRECTIONS: readonly OptimizationDirection[] = ['MINIMIZE', 'MAXIMIZE', 'NONE'];

const tooLong = (s: string, max: number) => Buffer.byteLength(s, 'utf8') > max;
const DESCRIPTION_MAX_BYTES = 65_536;

/** The rules a config must keep, each naming the field as the REST body does; [] when it is valid. */
export const annotationConfigProblems = (c: AnnotationConfigData): string[] => {
  const problems: string[] = [];
  const text = (field: string, value: string | null, max: number) => {
    if (value === null) return;
    if (storableText(value) !== value) problems.push(`${field}: must not contain NUL characters or unpaired UTF-16 surrogates`);
    else if (tooLong(value, max)) problems.push(`${field}: must be at most ${max} bytes of UTF-8`);
  };
  if (c.name.trim() === '') problems.push('name: must not be empty');
  text('name', c.name, NAME_MAX_BYTES);
  text('description', c.description, DESCRIPTION_MAX_BYTES);
  if (c.optimizationDirection !== null && !OPTIMIZATION_DIRECTIONS.includes(c.optimizationDirection))
    problems.push(`optimization_direction: must be one of ${OPTIMIZATION_DIRECTIONS.join(', ')}`);
  const finite = (field: string, v: number | null) => {
    if (v !== null && !Number.isFinite(v)) problems.push(`${field}: must be a finite number`);
  };
  switch (c.type) {
    case 'CATEGORICAL': {
      if (c.values.length === 0) problems.push('values: must list at least one value');
      const seen = new Set<string>();
      c.values.forEach((v, i) => {
        if (v.label.trim() === '') problems.push(`values.${i}.label: must not be empty`);
        text(`values.${i}.label`, v.label, NAME_MAX_BYTES);
        finite(`values.${i}.score`, v.score);
        if (seen.has(v.label)) problems.push(`values.${i}.label: "${v.label}" is listed twice; labels must be unique`);
        seen.add(v.label);
      });
      break;
    }
    case 'CONTINUOUS':
    case 'FREEFORM': {
      finite('lower_bound', c.lowerBound);
      finite('upper_bound', c.upperBound);
      if (c.type === 'FREEFORM') finite('threshold', c.threshold);
      if (c.lowerBound !== null && c.upperBound !== null && !(c.lowerBound < c.upperBound))
        problems.push('lower_bound: must be less than upper_bound');
      break;
    }
    default:
      problems.push(`type: must be one of CATEGORICAL, CONTINUOUS, FREEFORM`);
  }
  return problems;
};

/** Notes are annotations named `note`: a config of that name would describe them. */
export const isReservedConfigName = (name: string): boolean => name === NOTE_NAME;

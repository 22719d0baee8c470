import { createHash } from 'node:crypto';

/**
 * Where a target falls in [0, 1): from a hash of its id alone, so the choice is the same in every
 * process, after a restart and for every evaluator. Sampling at rate r takes the targets below r:
 * the targets taken at 10 % are among those taken at 25 %, and two evaluators at one rate judge
 * the same targets (comparable results).
 */
export const samplePoint = (targetId: string): number => {
  const digest = createHash('sha256').update(targetId).digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
};

export const isSampled = (targetId: string, rate: number): boolean => rate >= 1 || (rate > 0 && samplePoint(targetId) < rate);

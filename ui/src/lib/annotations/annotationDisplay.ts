import type { Viewer } from '../identity/viewer.ts';
import type { Annotation, AnnotationChipData } from './annotationTypes.ts';

const scoreFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 3 });

/** A score as people read it: up to three decimals. */
export const formatScore = (score: number | null | undefined): string =>
  score === null || score === undefined ? '' : scoreFormat.format(score);

/** What a chip shows after the name: the label, else the score, else nothing (free text). */
export const chipValue = (a: Pick<AnnotationChipData, 'label' | 'score'>): string => a.label ?? formatScore(a.score);

/**
 * Who may change what, as the server decides it (this only hides controls): writers edit their own
 * annotations; their own or, for admins, anyone's may be deleted. With auth off everyone may.
 */
export const annotationRights = (
  annotation: Pick<Annotation, 'userId'>,
  who: { authEnabled: boolean; canWrite: boolean; isAdmin: boolean; viewer: Viewer | null },
): { edit: boolean; remove: boolean } => {
  if (!who.authEnabled) return { edit: true, remove: true };
  const own = who.viewer !== null && annotation.userId === who.viewer.id;
  return { edit: who.canWrite && own, remove: who.canWrite && (own || who.isAdmin) };
};

/**
 * What the audit trail remembers of the things events name (a user's name, a project's
 * description, which version a prompt tag points at), so that an entry can say "role MEMBER →
 * ADMIN", "description "a" → "b"" or "tag moved from version 2 to 3" and show names after the
 * thing itself is deleted. Kept by the audit trail's own read model in log order, never read from
 * another feature's tables, so a rebuild gives the same entries.
 */
export type SubjectKind =
  | 'user'
  | 'apikey'
  | 'project'
  | 'prompt'
  | 'promptLabel'
  | 'dataset'
  | 'datasetLabel'
  | 'datasetSplit'
  | 'experiment'
  | 'annotationConfig'
  | 'retentionPolicy'
  | 'evaluator';

export type SubjectState = {
  readonly name?: string;
  readonly description?: string | null;
  /** Prompts: version uuid → its number (1, 2, ... in log order) and the tags' versions. */
  readonly versions?: Readonly<Record<string, number>>;
  readonly tags?: Readonly<Record<string, string>>;
  /** API keys: `system` or `user`. */
  readonly kind?: string;
};

export const subjectKey = (kind: SubjectKind, key: string): string => `${kind}:${key}`;

/** The subjects an apply step read (by `subjectKey`), and the ones it changed. */
export class Subjects {
  readonly changed = new Set<string>();
  constructor(private readonly states: Map<string, SubjectState> = new Map()) {}

  get(kind: SubjectKind, key: string | number | null | undefined): SubjectState {
    return key === null || key === undefined ? {} : (this.states.get(subjectKey(kind, String(key))) ?? {});
  }

  /** Merges `patch` into what is known of the subject. */
  set(kind: SubjectKind, key: string | number | null | undefined, patch: SubjectState): void {
    if (key === null || key === undefined) return;
    const k = subjectKey(kind, String(key));
    this.states.set(k, { ...this.states.get(k), ...patch });
    this.changed.add(k);
  }

  state(key: string): SubjectState | undefined {
    return this.states.get(key);
  }
}

const ID_FIELDS: Readonly<Record<string, SubjectKind>> = {
  userId: 'user',
  ownerUserId: 'user',
  keyId: 'apikey',
  projectId: 'project',
  promptId: 'prompt',
  datasetId: 'dataset',
  experimentId: 'experiment',
  configId: 'annotationConfig',
  splitId: 'datasetSplit',
  policyId: 'retentionPolicy',
  evaluatorId: 'evaluator',
};

/** The subjects describing `event` may read: the ids its data names (by field), whatever its type. */
export const subjectKeysOf = (event: { readonly type: string; readonly data: unknown }): string[] => {
  const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
  const keys: string[] = [];
  for (const [field, kind] of Object.entries(ID_FIELDS)) {
    const id = data[field];
    if (typeof id === 'string' || typeof id === 'number') keys.push(subjectKey(kind, String(id)));
  }
  const label: SubjectKind = event.type.startsWith('Prompt') ? 'promptLabel' : 'datasetLabel';
  if (typeof data.labelId === 'number') keys.push(subjectKey(label, String(data.labelId)));
  if (Array.isArray(data.labelIds)) for (const id of data.labelIds) keys.push(subjectKey(label, String(id)));
  return keys;
};

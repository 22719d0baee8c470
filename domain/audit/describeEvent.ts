import type { LoupeEventType } from '../events.ts';
import type { EventOf } from '../loupeEvent.ts';
import type { Subjects } from './auditSubjects.ts';

/**
 * What an event did, told to a person: the thing it touched and a one-line summary, with the
 * fields that changed (before → after) where that means something. Built from a whitelist of each
 * event type's fields, never from its data as a whole: a password hash, a key's hash, a token id
 * or a secret's (sealed) value is never read here, so it can never reach an audit entry.
 */
export type AuditResourceType =
  | 'User'
  | 'UserApiKey'
  | 'SystemApiKey'
  | 'Secret'
  | 'Project'
  | 'Prompt'
  | 'PromptLabel'
  | 'Dataset'
  | 'DatasetLabel'
  | 'DatasetSplit'
  | 'Experiment'
  | 'AnnotationConfig'
  | 'ModelPrice'
  | 'SavedFilter'
  | 'RetentionPolicy'
  | 'Evaluator'
  | 'ReadModel';

/** `key` is the domain's id of the thing (a user id, a project's uuid, a secret's key name). */
export type AuditResource = { readonly type: AuditResourceType; readonly key: string; readonly name: string | null };

export type AuditChange = { readonly field: string; readonly before: string | null; readonly after: string | null };

export type AuditDescription = {
  readonly resource: AuditResource | null;
  readonly summary: string;
  readonly changes: readonly AuditChange[];
};

const MAX_TEXT = 200;

/** A value as an entry shows it: text cut to 200 characters, anything else as JSON-ish text. */
const shown = (value: unknown): string | null => {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
};
const quoted = (value: unknown): string => (value === null || value === undefined ? '(none)' : `"${shown(value)}"`);
const count = (list: unknown): number => (Array.isArray(list) ? list.length : 0);
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const names = (list: unknown): string => (Array.isArray(list) ? list.map((v) => shown(v)).join(', ') : '');
const change = (field: string, before: unknown, after: unknown): AuditChange => ({ field, before: shown(before), after: shown(after) });
const described = (resource: AuditResource | null, summary: string, changes: readonly AuditChange[] = []): AuditDescription => ({
  resource,
  summary,
  changes,
});

/** Descriptions of `description` changes (and other optional fields): only those present in the event. */
const optionalChanges = (data: Record<string, unknown>, before: Record<string, unknown>, fields: readonly string[]): AuditChange[] =>
  fields.filter((f) => f in data).map((f) => change(f, before[f], data[f]));

type Describe<T extends LoupeEventType> = (data: EventOf<T>['data'], subjects: Subjects) => AuditDescription;

const user = (subjects: Subjects, userId: string, name?: string): AuditResource => ({
  type: 'User',
  key: userId,
  name: name ?? subjects.get('user', userId).name ?? null,
});
const project = (subjects: Subjects, projectId: string, name?: string): AuditResource => ({
  type: 'Project',
  key: projectId,
  name: name ?? subjects.get('project', projectId).name ?? null,
});
const prompt = (subjects: Subjects, promptId: string, name?: string): AuditResource => ({
  type: 'Prompt',
  key: promptId,
  name: name ?? subjects.get('prompt', promptId).name ?? null,
});
const dataset = (subjects: Subjects, datasetId: string, name?: string): AuditResource => ({
  type: 'Dataset',
  key: datasetId,
  name: name ?? subjects.get('dataset', datasetId).name ?? null,
});
const experiment = (subjects: Subjects, experimentId: string, name?: string): AuditResource => ({
  type: 'Experiment',
  key: experimentId,
  name: name ?? subjects.get('experiment', experimentId).name ?? null,
});
const apiKey = (subjects: Subjects, keyId: string, kind?: string, name?: string): AuditResource => {
  const known = subjects.get('apikey', keyId);
  return { type: (kind ?? known.kind) === 'system' ? 'SystemApiKey' : 'UserApiKey', key: keyId, name: name ?? known.name ?? null };
};
const labelOf =
  (kind: 'promptLabel' | 'datasetLabel' | 'datasetSplit' | 'annotationConfig' | 'retentionPolicy' | 'evaluator', type: AuditResourceType) =>
  (subjects: Subjects, id: number, name?: string): AuditResource => ({
    type,
    key: String(id),
    name: name ?? subjects.get(kind, id).name ?? null,
  });
const retentionPolicy = labelOf('retentionPolicy', 'RetentionPolicy');
const retentionRule = (d: { readonly maxDays: number | null; readonly maxTraces: number | null }): string =>
  [
    d.maxDays === null ? '' : `traces older than ${plural(d.maxDays, 'day')}`,
    d.maxTraces === null ? '' : `beyond ${plural(d.maxTraces, 'trace')}`,
  ]
    .filter(Boolean)
    .join(', ') || 'keeps everything';
const promptLabel = labelOf('promptLabel', 'PromptLabel');
const datasetLabel = labelOf('datasetLabel', 'DatasetLabel');
const datasetSplit = labelOf('datasetSplit', 'DatasetSplit');
const annotationConfig = labelOf('annotationConfig', 'AnnotationConfig');
const evaluator = labelOf('evaluator', 'Evaluator');

/** A prompt version's number ("version 3"), or its id when the trail never saw it added. */
const versionName = (subjects: Subjects, promptId: string, versionId: string | undefined): string | null => {
  if (versionId === undefined) return null;
  const n = subjects.get('prompt', promptId).versions?.[versionId];
  return n === undefined ? `version ${versionId}` : `version ${n}`;
};

/** One line per type of event; the record is exhaustive, so a new event type must say how it is told. */
const DESCRIBE: { readonly [T in LoupeEventType]: Describe<T> } = {
  // Identity. Never a password hash or a token id.
  UserCreated: (d, s) => {
    s.set('user', d.userId, { name: d.username });
    return described(user(s, d.userId, d.username), `User "${shown(d.username)}" created as ${d.role} (${d.authMethod})`, [
      change('role', null, d.role),
    ]);
  },
  UsernameChanged: (d, s) => {
    s.set('user', d.userId, { name: d.username });
    return described(user(s, d.userId, d.username), `Username ${quoted(d.previousUsername)} → ${quoted(d.username)}`, [
      change('username', d.previousUsername, d.username),
    ]);
  },
  ExternalIdentityLinked: (d, s) =>
    described(user(s, d.userId), `Linked to ${d.via === 'ldap' ? 'LDAP' : `OAuth2 provider ${quoted(d.provider)}`}`),
  EmailChanged: (d, s) =>
    described(user(s, d.userId), `Email ${quoted(d.previousEmail)} → ${quoted(d.email)} (from ${d.syncedFrom})`, [
      change('email', d.previousEmail, d.email),
    ]),
  PasswordChanged: (d, s) =>
    described(
      user(s, d.userId),
      `Password changed (${d.via === 'self' ? 'by the user' : d.via.replace('_', ' ')})${d.needsReset ? ', must be changed at next sign-in' : ''}`,
    ),
  RoleChanged: (d, s) =>
    described(
      user(s, d.userId),
      d.syncedFrom === undefined ? `Role ${d.previousRole} → ${d.role}` : `Role ${d.previousRole} → ${d.role} (from ${d.syncedFrom})`,
      [change('role', d.previousRole, d.role)],
    ),
  UserDeleted: (d, s) => described(user(s, d.userId), `User ${quoted(s.get('user', d.userId).name)} deleted`),
  LoginSucceeded: (d, s) => described(user(s, d.userId), 'Signed in'),
  LoginFailed: (d, s) => described(user(s, d.userId), 'Sign-in failed (wrong password)'),
  AccountLocked: (d, s) => described(user(s, d.userId), `Account locked until ${d.until}`),
  SessionStarted: (d, s) => described(user(s, d.userId), `Session started (${d.via})`),
  SessionRefreshed: (d, s) => described(user(s, d.userId), 'Session renewed'),
  SessionsRevoked: (d, s) => described(user(s, d.userId), `Sessions ended (${d.reason.replace('_', ' ')})`),
  PasswordResetRequested: (d, s) => described(user(s, d.userId), `Password reset requested (link valid until ${d.expiresAt})`),
  // An external identity's value is the provider's id of the person: not shown.
  UniqueValueReserved: (d, s) =>
    described(user(s, d.userId), d.kind === 'external' ? 'External identity reserved' : `${d.kind} ${quoted(d.value)} reserved`),
  UniqueValueReleased: (d, s) =>
    described(user(s, d.userId), d.kind === 'external' ? 'External identity released' : `${d.kind} ${quoted(d.value)} released`),

  // API keys: never the key, never its hash.
  ApiKeyIssued: (d, s) => {
    s.set('apikey', d.keyId, { name: d.name, kind: d.kind });
    const owner = d.ownerUserId === null ? '' : ` for ${quoted(s.get('user', d.ownerUserId).name ?? d.ownerUserId)}`;
    return described(
      apiKey(s, d.keyId, d.kind, d.name),
      `${d.kind === 'system' ? 'System' : 'User'} API key ${quoted(d.name)} created${owner}${d.expiresAt === null ? '' : `, expires ${d.expiresAt}`}`,
    );
  },
  ApiKeyRevoked: (d, s) =>
    described(
      apiKey(s, d.keyId, d.kind),
      `${d.kind === 'system' ? 'System' : 'User'} API key ${quoted(s.get('apikey', d.keyId).name)} ${d.reason === 'owner_deleted' ? 'ended with its owner' : 'deleted'}`,
    ),

  // Secrets: the key names only; the values are sealed in the event and never opened here.
  SecretsReplaced: (d) => {
    const set = Array.isArray(d.upserted) ? d.upserted.map((u) => u.key) : [];
    const deleted = Array.isArray(d.deleted) ? d.deleted : [];
    const keys = [...set, ...deleted];
    const parts = [set.length > 0 ? `set ${names(set)}` : '', deleted.length > 0 ? `deleted ${names(deleted)}` : ''].filter(Boolean);
    return described(
      keys.length === 1 ? { type: 'Secret', key: String(keys[0]), name: String(keys[0]) } : null,
      `Secrets: ${parts.join('; ') || 'nothing changed'}`,
      [...set.map((k) => change(`secret ${k}`, null, '(value set)')), ...deleted.map((k) => change(`secret ${k}`, '(value set)', null))],
    );
  },

  // Projects and telemetry.
  ProjectCreated: (d, s) => {
    s.set('project', d.projectId, { name: d.name, description: d.description });
    return described(project(s, d.projectId, d.name), `Project ${quoted(d.name)} created`);
  },
  ProjectUpdated: (d, s) => {
    const before = s.get('project', d.projectId);
    const changes = optionalChanges(d, { description: before.description }, ['description', 'gradientStartColor', 'gradientEndColor']);
    if ('description' in d) s.set('project', d.projectId, { description: d.description ?? null });
    const told = changes.map((c) =>
      c.field === 'description' ? `description ${quoted(c.before)} → ${quoted(c.after)}` : `${c.field} → ${c.after}`,
    );
    return described(project(s, d.projectId), `Project ${quoted(before.name)} updated: ${told.join(', ') || 'no change'}`, changes);
  },
  ProjectDeleted: (d, s) => described(project(s, d.projectId, d.name), `Project ${quoted(d.name)} deleted with its traces`),
  ProjectRestrictionSet: (d, s) =>
    described(
      project(s, d.projectId),
      `Project ${quoted(s.get('project', d.projectId).name)} ${d.restricted ? 'restricted to its grantees' : 'opened to everyone'}`,
      [change('restricted', !d.restricted, d.restricted)],
    ),
  ProjectGrantSet: (d, s) =>
    described(
      project(s, d.projectId),
      `User ${quoted(s.get('user', d.userId).name ?? d.userId)} granted ${d.role} on project ${quoted(s.get('project', d.projectId).name)}`,
      [change(`grant ${d.userId}`, null, d.role)],
    ),
  ProjectGrantRevoked: (d, s) =>
    described(
      project(s, d.projectId),
      `Grant of user ${quoted(s.get('user', d.userId).name ?? d.userId)} on project ${quoted(s.get('project', d.projectId).name)} revoked`,
      [change(`grant ${d.userId}`, '(granted)', null)],
    ),
  SpansIngested: (d, s) => described(project(s, d.projectId), `${plural(count(d.spans) + count(d.erased), 'span')} received`),
  SpanDeleted: (d, s) => described(project(s, d.projectId), `Span ${d.spanId} deleted`),
  TraceDeleted: (d, s) => described(project(s, d.projectId), `Trace ${d.traceId} deleted`),
  SessionDeleted: (d, s) => described(project(s, d.projectId), `Session ${quoted(d.sessionId)} deleted`),
  // One entry per policy run and project: the count and the rule applied, never the ids' list.
  TracesExpired: (d, s) => {
    const rule = [
      d.startedBefore ? `started before ${shown(d.startedBefore)}` : '',
      typeof d.maxTraces === 'number' ? `beyond the newest ${plural(d.maxTraces, 'trace')}` : '',
    ].filter(Boolean);
    return described(
      project(s, d.projectId),
      `${plural(count(d.traceIds), 'trace')} expired in project ${quoted(s.get('project', d.projectId).name ?? d.projectId)} by retention policy ${quoted(s.get('retentionPolicy', d.policyId).name ?? d.policyId)}${rule.length > 0 ? ` (${rule.join(', ')})` : ''}`,
    );
  },
  ProjectionEventSkipped: (d) =>
    described(
      { type: 'ReadModel', key: d.projection, name: d.projection },
      `Read model ${d.projection} skips the ${d.type} event at ${d.position}${d.reason ? `: ${shown(d.reason)}` : ''}`,
    ),
  ContentRemoved: (d) => {
    const removed = d.removed ?? { spans: 0, annotations: 0 };
    const why =
      d.kind === 'retention' ? `retention policy ${quoted(d.policyId)} (traces before ${d.cutoff})` : 'erasure of deleted telemetry';
    return described(
      null,
      `Removed ${plural(removed.spans, 'span')} and ${plural(removed.annotations, 'annotation')} from ${plural(count(d.erased), 'event')} (${why})`,
    );
  },

  // Retention policies: a policy deletes traces as the actor `retention:<policy>`.
  TraceRetentionPolicyCreated: (d, s) => {
    s.set('retentionPolicy', d.policyId, { name: d.name });
    return described(retentionPolicy(s, d.policyId, d.name), `Retention policy ${quoted(d.name)} created (${retentionRule(d)})`);
  },
  TraceRetentionPolicyChanged: (d, s) => {
    const before = s.get('retentionPolicy', d.policyId).name;
    s.set('retentionPolicy', d.policyId, { name: d.name });
    return described(retentionPolicy(s, d.policyId, d.name), `Retention policy ${quoted(d.name)} changed: ${retentionRule(d)}`, [
      ...(before !== undefined && before !== d.name ? [change('name', before, d.name)] : []),
      change('rule', null, retentionRule(d)),
    ]);
  },
  TraceRetentionPolicyDeleted: (d, s) =>
    described(retentionPolicy(s, d.policyId), `Retention policy ${quoted(s.get('retentionPolicy', d.policyId).name)} deleted`),
  ProjectTraceRetentionPolicySet: (d, s) =>
    described(
      project(s, d.projectId),
      d.policyId === null
        ? 'Project retention policy removed (the default applies)'
        : `Project retention policy set to ${quoted(s.get('retentionPolicy', d.policyId).name ?? d.policyId)}`,
    ),
  TraceRetentionApplied: (d) =>
    described(
      { type: 'RetentionPolicy', key: String(d.policyId), name: String(d.policyId) },
      `Retention policy ${quoted(d.policyId)} ran: ${plural(d.expiredTraces, 'trace')} expired in ${plural(d.projects, 'project')}`,
    ),

  // Annotations.
  AnnotationsRecorded: (d) => {
    const list = Array.isArray(d.annotations) ? d.annotations : [];
    const kinds = [...new Set(list.map((a) => a.name))].slice(0, 5);
    return described(null, `${plural(list.length, 'annotation')} recorded (${d.source})${kinds.length ? `: ${names(kinds)}` : ''}`);
  },
  AnnotationsDeleted: (d, s) =>
    described(project(s, d.projectId), `Annotations on ${d.target}s deleted${d.name === null ? '' : ` named ${quoted(d.name)}`}`),
  AnnotationsRemoved: (d) => described(null, `${plural(count(d.annotations), 'annotation')} removed`),
  AnnotationConfigCreated: (d, s) => {
    s.set('annotationConfig', d.configId, { name: d.config.name });
    return described(
      annotationConfig(s, d.configId, d.config.name),
      `Annotation config ${quoted(d.config.name)} (${d.config.type}) created`,
    );
  },
  AnnotationConfigUpdated: (d, s) => {
    const before = s.get('annotationConfig', d.configId).name;
    s.set('annotationConfig', d.configId, { name: d.config.name });
    return described(
      annotationConfig(s, d.configId, d.config.name),
      `Annotation config ${quoted(d.config.name)} updated`,
      before !== undefined && before !== d.config.name ? [change('name', before, d.config.name)] : [],
    );
  },
  AnnotationConfigDeleted: (d, s) =>
    described(annotationConfig(s, d.configId), `Annotation config ${quoted(s.get('annotationConfig', d.configId).name)} deleted`),
  AnnotationConfigAssigned: (d, s) =>
    described(
      annotationConfig(s, d.configId),
      `Annotation config ${quoted(s.get('annotationConfig', d.configId).name)} added to project ${quoted(s.get('project', d.projectId).name)}`,
    ),
  AnnotationConfigUnassigned: (d, s) =>
    described(
      annotationConfig(s, d.configId),
      `Annotation config ${quoted(s.get('annotationConfig', d.configId).name)} removed from project ${quoted(s.get('project', d.projectId).name)}`,
    ),

  // Prompts: versions are told by their number, tags by the versions they move between.
  PromptCreated: (d, s) => {
    s.set('prompt', d.promptId, { name: d.name, description: d.description, versions: {}, tags: {} });
    return described(prompt(s, d.promptId, d.name), `Prompt ${quoted(d.name)} created`);
  },
  PromptVersionAdded: (d, s) => {
    const versions = s.get('prompt', d.promptId).versions ?? {};
    const n = versions[d.versionId] ?? Object.keys(versions).length + 1;
    s.set('prompt', d.promptId, { versions: { ...versions, [d.versionId]: n } });
    return described(prompt(s, d.promptId), `Prompt ${quoted(s.get('prompt', d.promptId).name)}: version ${n} saved`);
  },
  PromptTagSet: (d, s) => {
    const known = s.get('prompt', d.promptId);
    const before = versionName(s, d.promptId, known.tags?.[d.name]);
    const after = versionName(s, d.promptId, d.versionId);
    s.set('prompt', d.promptId, { tags: { ...known.tags, [d.name]: d.versionId } });
    return described(
      prompt(s, d.promptId),
      before === null ? `Tag ${quoted(d.name)} set on ${after}` : `Tag ${quoted(d.name)} moved from ${before} to ${after}`,
      [change(`tag ${d.name}`, before, after)],
    );
  },
  PromptTagRemoved: (d, s) => {
    const known = s.get('prompt', d.promptId);
    const before = versionName(s, d.promptId, known.tags?.[d.name]);
    const tags = { ...known.tags };
    delete tags[d.name];
    s.set('prompt', d.promptId, { tags });
    return described(prompt(s, d.promptId), `Tag ${quoted(d.name)} removed${before === null ? '' : ` from ${before}`}`, [
      change(`tag ${d.name}`, before, null),
    ]);
  },
  PromptUpdated: (d, s) => {
    const before = s.get('prompt', d.promptId);
    const changes = 'description' in d ? [change('description', before.description, d.description)] : [];
    if ('description' in d) s.set('prompt', d.promptId, { description: d.description ?? null });
    const told = [
      ...changes.map((c) => `description ${quoted(c.before)} → ${quoted(c.after)}`),
      ...('metadata' in d ? ['metadata replaced'] : []),
    ];
    return described(prompt(s, d.promptId), `Prompt ${quoted(before.name)} updated: ${told.join(', ') || 'no change'}`, changes);
  },
  PromptLabelsSet: (d, s) =>
    described(
      prompt(s, d.promptId),
      `Prompt labels set: ${(Array.isArray(d.labelIds) ? d.labelIds : []).map((id) => quoted(s.get('promptLabel', id).name ?? id)).join(', ') || '(none)'}`,
    ),
  PromptDeleted: (d, s) => described(prompt(s, d.promptId, d.name), `Prompt ${quoted(d.name)} deleted`),
  PromptLabelCreated: (d, s) => {
    s.set('promptLabel', d.labelId, { name: d.label.name });
    return described(promptLabel(s, d.labelId, d.label.name), `Prompt label ${quoted(d.label.name)} created`);
  },
  PromptLabelUpdated: (d, s) => {
    const before = s.get('promptLabel', d.labelId).name;
    s.set('promptLabel', d.labelId, { name: d.label.name });
    return described(promptLabel(s, d.labelId, d.label.name), `Prompt label ${quoted(d.label.name)} updated`, [
      ...(before !== undefined && before !== d.label.name ? [change('name', before, d.label.name)] : []),
    ]);
  },
  PromptLabelDeleted: (d, s) =>
    described(promptLabel(s, d.labelId), `Prompt label ${quoted(s.get('promptLabel', d.labelId).name)} deleted`),

  // Datasets and experiments: counts, never the examples' or outputs' content.
  DatasetCreated: (d, s) => {
    s.set('dataset', d.datasetId, { name: d.name, description: d.description });
    return described(dataset(s, d.datasetId, d.name), `Dataset ${quoted(d.name)} created`);
  },
  DatasetVersionCreated: (d, s) =>
    described(
      dataset(s, d.datasetId),
      `Dataset ${quoted(s.get('dataset', d.datasetId).name)}: new version${d.uploadId ? ' (upload)' : ''}`,
    ),
  DatasetExamplesAdded: (d, s) => described(dataset(s, d.datasetId), `${plural(count(d.examples), 'example')} added`),
  DatasetExamplesPatched: (d, s) => described(dataset(s, d.datasetId), `${plural(count(d.examples), 'example')} edited`),
  DatasetExamplesDeleted: (d, s) => described(dataset(s, d.datasetId), `${plural(count(d.exampleIds), 'example')} deleted`),
  DatasetRenamed: (d, s) => {
    const before = s.get('dataset', d.datasetId).name;
    s.set('dataset', d.datasetId, { name: d.name });
    return described(dataset(s, d.datasetId, d.name), `Dataset renamed ${quoted(before)} → ${quoted(d.name)}`, [
      change('name', before, d.name),
    ]);
  },
  DatasetUpdated: (d, s) => {
    const before = s.get('dataset', d.datasetId);
    const changes = 'description' in d ? [change('description', before.description, d.description)] : [];
    if ('description' in d) s.set('dataset', d.datasetId, { description: d.description ?? null });
    const told = [
      ...changes.map((c) => `description ${quoted(c.before)} → ${quoted(c.after)}`),
      ...('metadata' in d ? ['metadata replaced'] : []),
    ];
    return described(dataset(s, d.datasetId), `Dataset ${quoted(before.name)} updated: ${told.join(', ') || 'no change'}`, changes);
  },
  DatasetLabelsSet: (d, s) =>
    described(
      dataset(s, d.datasetId),
      `Dataset labels set: ${(Array.isArray(d.labelIds) ? d.labelIds : []).map((id) => quoted(s.get('datasetLabel', id).name ?? id)).join(', ') || '(none)'}`,
    ),
  DatasetDeleted: (d, s) => described(dataset(s, d.datasetId, d.name), `Dataset ${quoted(d.name)} deleted`),
  ExperimentTagSet: (d, s) =>
    described(dataset(s, d.datasetId), `Experiment tag ${quoted(d.name)} set on ${quoted(s.get('experiment', d.experimentId).name)}`),
  ExperimentTagRemoved: (d, s) => described(dataset(s, d.datasetId), `Experiment tag ${quoted(d.name)} removed`),
  DatasetExamplesStaged: (d) => described(null, `Upload ${d.uploadId}: ${plural(count(d.examples), 'example')} staged (part ${d.seq})`),
  DatasetNameClaimed: (d, s) => described(dataset(s, d.datasetId), `Dataset name ${quoted(d.name)} reserved`),
  DatasetNameReleased: (d, s) => described(dataset(s, d.datasetId), `Dataset name ${quoted(d.name)} released`),
  DatasetLabelCreated: (d, s) => {
    s.set('datasetLabel', d.labelId, { name: d.label.name });
    return described(datasetLabel(s, d.labelId, d.label.name), `Dataset label ${quoted(d.label.name)} created`);
  },
  DatasetLabelUpdated: (d, s) => {
    const before = s.get('datasetLabel', d.labelId).name;
    s.set('datasetLabel', d.labelId, { name: d.label.name });
    return described(datasetLabel(s, d.labelId, d.label.name), `Dataset label ${quoted(d.label.name)} updated`, [
      ...(before !== undefined && before !== d.label.name ? [change('name', before, d.label.name)] : []),
    ]);
  },
  DatasetLabelDeleted: (d, s) =>
    described(datasetLabel(s, d.labelId), `Dataset label ${quoted(s.get('datasetLabel', d.labelId).name)} deleted`),
  DatasetSplitCreated: (d, s) => {
    s.set('datasetSplit', d.splitId, { name: d.split.name });
    return described(datasetSplit(s, d.splitId, d.split.name), `Dataset split ${quoted(d.split.name)} created`);
  },
  DatasetSplitUpdated: (d, s) => {
    const before = s.get('datasetSplit', d.splitId).name;
    s.set('datasetSplit', d.splitId, { name: d.split.name });
    return described(datasetSplit(s, d.splitId, d.split.name), `Dataset split ${quoted(d.split.name)} updated`, [
      ...(before !== undefined && before !== d.split.name ? [change('name', before, d.split.name)] : []),
    ]);
  },
  DatasetSplitDeleted: (d, s) =>
    described(datasetSplit(s, d.splitId), `Dataset split ${quoted(s.get('datasetSplit', d.splitId).name)} deleted`),
  DatasetSplitExamplesChanged: (d, s) =>
    described(
      datasetSplit(s, d.splitId),
      `Dataset split ${quoted(s.get('datasetSplit', d.splitId).name)}: ${plural(count(d.added), 'example')} added, ${count(d.removed)} removed`,
    ),
  ExperimentCreated: (d, s) => {
    s.set('experiment', d.experimentId, { name: d.name });
    return described(
      experiment(s, d.experimentId, d.name),
      `Experiment ${quoted(d.name)} created on dataset ${quoted(s.get('dataset', d.datasetId).name)} (${plural(count(d.exampleIds), 'example')}, ${plural(d.repetitions, 'repetition')})`,
    );
  },
  ExperimentUpdated: (d, s) => {
    const before = s.get('experiment', d.experimentId).name;
    if (d.name !== undefined) s.set('experiment', d.experimentId, { name: d.name });
    const changes = [...(d.name !== undefined && d.name !== before ? [change('name', before, d.name)] : [])];
    return described(experiment(s, d.experimentId), `Experiment ${quoted(s.get('experiment', d.experimentId).name)} updated`, changes);
  },
  ExperimentDeleted: (d, s) =>
    described(experiment(s, d.experimentId), `Experiment ${quoted(s.get('experiment', d.experimentId).name)} deleted`),
  ExperimentRunRecorded: (d, s) =>
    described(experiment(s, d.experimentId), `Run recorded (repetition ${d.repetition})${d.error === null ? '' : ', failed'}`),
  ExperimentEvaluationRecorded: (d, s) =>
    described(
      experiment(s, d.experimentId),
      `Evaluation ${quoted(d.name)} recorded (${d.annotatorKind})${d.error === null ? '' : ', failed'}`,
    ),

  // Prices and saved filters.
  ModelPriceSet: (d) =>
    described({ type: 'ModelPrice', key: d.model, name: d.model }, `Price of ${quoted(d.model)} set from ${d.effectiveFrom}`, [
      change(
        'prices',
        null,
        Array.isArray(d.prices) ? d.prices.map((p) => `${p.tokenType} $${p.usdPerToken * 1_000_000}/M`).join(', ') : null,
      ),
    ]),
  ModelPriceDeleted: (d) =>
    described({ type: 'ModelPrice', key: d.model, name: d.model }, `Price of ${quoted(d.model)} from ${d.effectiveFrom} removed`),
  SavedFilterSaved: (d, s) =>
    described(project(s, d.projectId), `Saved ${d.subject} filter ${quoted(d.name)}`, [
      change(`filter ${d.name}`, null, d.condition || d.search),
    ]),
  SavedFilterDeleted: (d, s) => described(project(s, d.projectId), `Saved filter ${quoted(d.name)} deleted`),
  // Alert rules are told under their project; a rule's destinations (and their sealed secrets) are never read here.
  AlertRuleCreated: (d, s) =>
    described(project(s, d.projectId), `Alert rule ${quoted(d.rule.name)} created: ${d.rule.metric} over ${d.rule.windowSeconds} s`),
  AlertRuleChanged: (d, s) => described(project(s, d.projectId), `Alert rule ${quoted(d.rule.name)} changed`),
  AlertRuleDeleted: (d, s) => described(project(s, d.projectId), `Alert rule ${quoted(d.name)} deleted`),
  AlertStateChanged: (d, s) =>
    described(project(s, d.projectId), `Alert ${d.alertId} ${d.from} → ${d.to}`, [change('value', null, d.value)]),

  // Evaluators (their verdicts are AnnotationsRecorded; a failure is told by its evaluator).
  EvaluatorCreated: (d, s) => {
    s.set('evaluator', d.evaluatorId, { name: d.definition.name });
    return described(
      evaluator(s, d.evaluatorId, d.definition.name),
      `Evaluator ${quoted(d.definition.name)} (${d.definition.kind}) created`,
    );
  },
  EvaluatorUpdated: (d, s) => {
    const before = s.get('evaluator', d.evaluatorId).name;
    s.set('evaluator', d.evaluatorId, { name: d.definition.name });
    return described(
      evaluator(s, d.evaluatorId, d.definition.name),
      `Evaluator ${quoted(d.definition.name)} changed (version ${d.version})`,
      before !== undefined && before !== d.definition.name ? [change('name', before, d.definition.name)] : [],
    );
  },
  EvaluatorDeleted: (d, s) => described(evaluator(s, d.evaluatorId), `Evaluator ${quoted(s.get('evaluator', d.evaluatorId).name)} deleted`),
  ProjectEvaluatorAttached: (d, s) =>
    described(
      evaluator(s, d.evaluatorId),
      `Evaluator ${quoted(s.get('evaluator', d.evaluatorId).name)} set on project ${quoted(s.get('project', d.projectId).name)} (${d.settings.target}, ${d.settings.samplingRate * 100} %)`,
    ),
  ProjectEvaluatorChanged: (d) =>
    described(
      null,
      `Project evaluator ${d.attachmentId} changed (${d.settings.enabled ? 'enabled' : 'disabled'}, ${d.settings.samplingRate * 100} %)`,
    ),
  ProjectEvaluatorDetached: (d) => described(null, `Project evaluator ${d.attachmentId} removed`),
  EvaluatorBackfillRequested: (d) => described(null, `Project evaluator ${d.attachmentId} asked to judge ${d.startTime} to ${d.endTime}`),
  DatasetEvaluatorAttached: (d, s) =>
    described(
      evaluator(s, d.evaluatorId),
      `Evaluator ${quoted(s.get('evaluator', d.evaluatorId).name)} set on dataset ${quoted(s.get('dataset', d.datasetId).name)}`,
    ),
  DatasetEvaluatorDetached: (d) => described(null, `Dataset evaluator ${d.datasetEvaluatorId} removed`),
  EvaluationFailed: (d, s) =>
    described(
      evaluator(s, d.evaluatorId),
      `Evaluation of ${d.target.toLowerCase()} ${quoted(d.targetId)} failed after ${plural(d.attempts, 'attempt')}`,
    ),
};

/** Every event type the audit trail knows how to tell (all of `LoupeEvent`). */
export const AUDITED_TYPES: readonly string[] = Object.keys(DESCRIBE);

/**
 * The description of `event`, reading and updating what the trail knows of its subjects. An event
 * of a type this code does not know (a hand-crafted one) is listed by its type alone.
 */
export const describeEvent = (event: { readonly type: string; readonly data: unknown }, subjects: Subjects): AuditDescription => {
  const describe = (DESCRIBE as Record<string, Describe<LoupeEventType> | undefined>)[event.type];
  if (describe === undefined || typeof event.data !== 'object' || event.data === null) return described(null, event.type);
  try {
    return describe(event.data as never, subjects);
  } catch {
    // A crafted event missing a field this line reads: listed, without a summary it cannot make.
    return described(null, event.type);
  }
};

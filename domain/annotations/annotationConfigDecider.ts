import type { Decider } from '../decider.ts';
import { DomainError } from '../errors.ts';
import { annotationConfigProblems, isReservedConfigName, type AnnotationConfigData } from './annotationConfig.ts';
import type { AnnotationConfigCommand } from './commands.ts';
import type { AnnotationConfigEvent } from './events.ts';

export type AnnotationConfigsState = {
  /** The last config id handed out: ids are never reused, so a GlobalID names one config forever. */
  readonly lastId: number;
  readonly configs: ReadonlyMap<number, { readonly config: AnnotationConfigData; readonly projects: ReadonlySet<string> }>;
};

const withConfig = (
  state: AnnotationConfigsState,
  configId: number,
  change: (entry: { config: AnnotationConfigData; projects: ReadonlySet<string> } | undefined) => {
    config: AnnotationConfigData;
    projects: ReadonlySet<string>;
  } | null,
): AnnotationConfigsState => {
  const configs = new Map(state.configs);
  const next = change(configs.get(configId));
  if (next === null) configs.delete(configId);
  else configs.set(configId, next);
  return { ...state, configs };
};

const evolve = (state: AnnotationConfigsState, event: AnnotationConfigEvent): AnnotationConfigsState => {
  switch (event.type) {
    case 'AnnotationConfigCreated':
      return withConfig({ ...state, lastId: Math.max(state.lastId, event.data.configId) }, event.data.configId, () => ({
        config: event.data.config,
        projects: new Set(),
      }));
    case 'AnnotationConfigUpdated':
      return withConfig(state, event.data.configId, (e) => (e ? { ...e, config: event.data.config } : null));
    case 'AnnotationConfigDeleted':
      return withConfig(state, event.data.configId, () => null);
    case 'AnnotationConfigAssigned':
      return withConfig(state, event.data.configId, (e) => (e ? { ...e, projects: new Set([...e.projects, event.data.projectId]) } : null));
    case 'AnnotationConfigUnassigned':
      return withConfig(state, event.data.configId, (e) =>
        e ? { ...e, projects: new Set([...e.projects].filter((p) => p !== event.data.projectId)) } : null,
      );
    default:
      return state;
  }
};

const notFound = (configId: number) =>
  new DomainError('annotation_config_not_found', `Annotation config ${configId} not found`, 'not_found');

const checkConfig = (state: AnnotationConfigsState, config: AnnotationConfigData, self: number | null): void => {
  const problems = annotationConfigProblems(config);
  if (problems.length > 0) throw new DomainError('invalid_annotation_config', problems.slice(0, 5).join('; '));
  if (isReservedConfigName(config.name))
    throw new DomainError('annotation_config_name_reserved', `The name "${config.name}" is reserved for notes`, 'conflict');
  for (const [id, entry] of state.configs)
    if (id !== self && entry.config.name === config.name)
      throw new DomainError('annotation_config_exists', `An annotation config named "${config.name}" already exists`, 'conflict');
};

const decide = (c: AnnotationConfigCommand, state: AnnotationConfigsState): AnnotationConfigEvent[] => {
  switch (c.type) {
    case 'CreateAnnotationConfig':
      checkConfig(state, c.config, null);
      return [{ type: 'AnnotationConfigCreated', data: { configId: state.lastId + 1, config: c.config } }];
    case 'UpdateAnnotationConfig':
      if (!state.configs.has(c.configId)) throw notFound(c.configId);
      checkConfig(state, c.config, c.configId);
      return [{ type: 'AnnotationConfigUpdated', data: { configId: c.configId, config: c.config } }];
    case 'DeleteAnnotationConfig':
      if (!state.configs.has(c.configId)) throw notFound(c.configId);
      return [{ type: 'AnnotationConfigDeleted', data: { configId: c.configId } }];
    case 'AssignAnnotationConfig': {
      const entry = state.configs.get(c.configId);
      if (entry === undefined) throw notFound(c.configId);
      return entry.projects.has(c.projectId)
        ? []
        : [{ type: 'AnnotationConfigAssigned', data: { configId: c.configId, projectId: c.projectId } }];
    }
    case 'UnassignAnnotationConfig': {
      const entry = state.configs.get(c.configId);
      if (entry === undefined) throw notFound(c.configId);
      return entry.projects.has(c.projectId)
        ? [{ type: 'AnnotationConfigUnassigned', data: { configId: c.configId, projectId: c.projectId } }]
        : [];
    }
    case 'SetProjectAnnotationConfigs': {
      const wanted = new Set(c.configIds);
      const missing = c.configIds.findIndex((id) => !state.configs.has(id));
      if (missing >= 0)
        throw new DomainError(
          'annotation_config_not_found',
          `annotation_config_ids.${missing}: annotation config ${c.configIds[missing]} not found`,
          'not_found',
        );
      const events: AnnotationConfigEvent[] = [];
      for (const [configId, entry] of state.configs) {
        const assigned = entry.projects.has(c.projectId);
        if (assigned && !wanted.has(configId))
          events.push({ type: 'AnnotationConfigUnassigned', data: { configId, projectId: c.projectId } });
      }
      for (const configId of wanted)
        if (!state.configs.get(configId)!.projects.has(c.projectId))
          events.push({ type: 'AnnotationConfigAssigned', data: { configId, projectId: c.projectId } });
      return events;
    }
  }
};

/** All annotation configs in one aggregate: unique names, ids handed out in order, assignments. */
export const annotationConfigDecider: Decider<AnnotationConfigsState, AnnotationConfigCommand, AnnotationConfigEvent> = {
  initialState: () => ({ lastId: 0, configs: new Map() }),
  evolve,
  decide,
};

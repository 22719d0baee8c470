import type { Projection } from '../projection.ts';
import { applyPromptEvent, applyPromptLabelEvent } from './applyPromptEvent.ts';
import { promptsMigrations } from './promptsMigrations.ts';

const PROMPT_EVENT_TYPES = [
  'PromptCreated',
  'PromptVersionAdded',
  'PromptTagSet',
  'PromptTagRemoved',
  'PromptUpdated',
  'PromptLabelsSet',
  'PromptDeleted',
] as const;
const PROMPT_LABEL_EVENT_TYPES = ['PromptLabelCreated', 'PromptLabelUpdated', 'PromptLabelDeleted'] as const;

const PROMPT_EVENTS = new Set<string>(PROMPT_EVENT_TYPES);
const LABEL_EVENTS = new Set<string>(PROMPT_LABEL_EVENT_TYPES);

/** Prompts, their versions and tags, labels and which prompts carry them. */
export const promptsProjection: Projection = {
  name: 'prompts',
  /** The event types `apply` reads (a read-your-writes wait for another type passes while this read model is stopped). */
  eventTypes: [...PROMPT_EVENT_TYPES, ...PROMPT_LABEL_EVENT_TYPES],
  tables: ['prompt_ids', 'prompts', 'prompt_versions', 'prompt_version_tags', 'prompt_labels', 'prompt_label_links'],
  migrations: promptsMigrations,
  apply: async (tx, events) => {
    for (const event of events) {
      if (PROMPT_EVENTS.has(event.type)) await applyPromptEvent(tx, event);
      else if (LABEL_EVENTS.has(event.type)) await applyPromptLabelEvent(tx, event);
    }
  },
};

import { createHash } from 'node:crypto';

/**
 * `prompt-<sha256 of the name>`. Names are unique and never change, so the name is the stream's
 * key: appending `PromptCreated` with the revision read is what keeps them unique, and two
 * clients pushing the first version of one name concurrently end up with one prompt, two versions.
 */
export const promptStream = (name: string): string => `prompt-${createHash('sha256').update(name).digest('hex')}`;

/** Every prompt label: names are unique across labels, and there are few. */
export const PROMPT_LABELS_STREAM = 'prompt-labels';

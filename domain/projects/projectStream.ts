import { createHash } from 'node:crypto';

/**
 * `project-<sha256 of the name>`. Names are unique as sent (Phoenix compares them exactly, so
 * "Shop" and "shop" are two projects) and never change, so the name is the stream's key; the hash
 * keeps stream names short and free of whatever characters a name holds.
 */
export const projectStream = (name: string): string => `project-${createHash('sha256').update(name).digest('hex')}`;

import { NAME_MAX_BYTES, storableText } from '../base/storableText.ts';

/** Project names are unique in a btree index, which holds rows of at most ~2.7 KB. */
export const PROJECT_NAME_MAX_BYTES = NAME_MAX_BYTES;

/**
 * Why a project name cannot be stored, or null. Refused rather than cut: a name is the project's
 * identity, and two long names cut to the same text would silently become one project.
 * Ingest replaces control characters first (as in every other span string), so only the REST
 * and CLI paths ever see the NUL refusal.
 */
export const projectNameProblem = (name: string): string | null => {
  if (name.trim() === '') return 'A project name must not be empty';
  if (storableText(name) !== name) return 'A project name must not contain NUL characters or unpaired UTF-16 surrogates';
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > PROJECT_NAME_MAX_BYTES) return `A project name must be at most ${PROJECT_NAME_MAX_BYTES} bytes of UTF-8, got ${bytes}`;
  return null;
};

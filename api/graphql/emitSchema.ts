/**
 * `npm run graphql:schema`: writes the schema's SDL to api/graphql/schema.graphql, the file the
 * UI codes against; a test fails when it differs from what the code builds.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaSdl } from './buildGraphqlSchema.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('./schema.graphql', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, schemaSdl());
  console.log(`wrote ${SCHEMA_FILE}`);
}

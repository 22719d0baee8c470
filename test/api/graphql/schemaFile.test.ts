import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { schemaSdl } from '../../../api/graphql/buildGraphqlSchema.ts';
import { SCHEMA_FILE } from '../../../api/graphql/emitSchema.ts';

test('the checked-in api/graphql/schema.graphql is the schema the code builds (regenerate: npm run graphql:schema)', () => {
  const built = schemaSdl();
  const file = readFileSync(SCHEMA_FILE, 'utf8');
  if (built !== file) {
    const a = built.split('\n');
    const b = file.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    assert.unreachable(
      `api/graphql/schema.graphql is out of date; run \`npm run graphql:schema\` and commit it. First difference at line ${line + 1}:\n  code: ${a[line]}\n  file: ${b[line]}`,
    );
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rawSql } from '../../projections/migrate.ts';
import { runCli } from '../support/cliProcess.ts';
import { auditedServerLog } from './auditedServerLog.ts';

const test = suite('loupe audit verify');

let log: Awaited<ReturnType<typeof auditedServerLog>>;
test.before(async () => {
  log = await auditedServerLog();
});
test.after(async () => log.cleanup());

/** As the database's superuser, the append-only triggers off. */
const tamper = async (statement: string) => {
  const db = await log.open();
  try {
    await db.pool.transaction(async (tx) => {
      await tx.query(rawSql('SET LOCAL session_replication_role = replica'));
      await tx.query(rawSql(statement));
    });
  } finally {
    await db.close();
  }
};

test('an untouched log a server wrote verifies: exit 0, the sealed head named', async () => {
  const result = await runCli(log.env, ['audit', 'verify']);
  assert.is(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /^intact: \d+ sealed events verified \(head \d+:\d+ seal [0-9a-f]{64}, key a-[0-9a-f]{12}\)/);
  assert.match(result.stderr, /events\/s/);
  assert.match(result.stdout, /\n1 event\(s\) erased by the removal record at position \d+\n/);
});

test('without the key the chain was sealed with it does not verify', async () => {
  const { SERVICE_ENABLE_AUTH, SERVICE_SECRET, SERVICE_ADMIN_SECRET, ...unkeyed } = log.env;
  const result = await runCli(unkeyed, ['audit', 'verify']);
  assert.is(result.code, 1);
  assert.match(result.stdout, /TAMPERED: sealed with another key/);
});

test("a user's creation with its metadata edited: exit 1, the position named", async () => {
  await tamper(`UPDATE events SET metadata = jsonb_set(metadata, '{actor}', '"nobody"') WHERE type = 'UserCreated'`);
  const result = await runCli(log.env, ['audit', 'verify']);
  assert.is(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stdout, /TAMPERED: metadata changed at position \d+:\d+: UserCreated /);
});

test.run();

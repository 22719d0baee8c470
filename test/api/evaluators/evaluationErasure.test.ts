import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, eventually, seed } from '../../support/restClient.ts';
import { attach, createEvaluator, failuresOf, span } from '../../support/evaluatorFixtures.ts';
import { startTestServer } from '../../support/testServer.ts';
import { wholeLog } from '../../support/wholeLog.ts';

const SECRET = 'ssn-078-05-1120';

test('given a failed evaluation quoting its span, when the span is erased, then its error text is gone from the log and the failures list', async () => {
  const server = await startTestServer();
  try {
    await callJson(server, 'POST', '/v1/projects', { name: 'erasable' });
    const id = await createEvaluator(
      server,
      'quoter',
      'export function evaluate({ output }) { throw new Error("cannot judge " + output); }',
    );
    await attach(server, 'erasable', id);
    const quoted = span('LLM', SECRET);
    await seed(server, 'erasable', [quoted]);
    const before = await eventually(
      () => failuresOf(server, id),
      (f) => f.total === 1,
    );
    assert.match(before.data[0]!.error, SECRET);

    const deleted = await callJson(server, 'DELETE', `/v1/spans/${quoted.spanId}`);
    assert.is(deleted.status, 204, deleted.text);
    const after = await eventually(
      () => failuresOf(server, id),
      (f) => !f.data[0]!.error.includes(SECRET),
    );
    assert.not.match(after.data[0]!.error, SECRET);
    // Still counted (the evaluator failed once), no longer saying what it saw.
    assert.is(after.total, 1);
    const log = await eventually(
      async () => JSON.stringify(await wholeLog(server.store), (_k, v) => (typeof v === 'bigint' ? String(v) : v)),
      (text) => !text.includes(SECRET),
    );
    assert.not.ok(log.includes(SECRET), 'the log still holds the span content');
  } finally {
    await server.close();
  }
});

test.run();

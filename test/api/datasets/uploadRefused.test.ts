import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { callJson } from '../../support/restClient.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

type Context = { server: TestServer; spoolDir: string; tmpBefore: string | undefined };
const test = suite<Context>('a refused upload leaves nothing behind', {} as Context);
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  // The upload spools to os.tmpdir(): a private one shows what it leaves behind.
  ctx.tmpBefore = process.env.TMPDIR;
  ctx.spoolDir = await mkdtemp(join(tmpdir(), 'loupe-spool-test-'));
  process.env.TMPDIR = ctx.spoolDir;
});
test.after(async (ctx) => {
  if (ctx.tmpBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = ctx.tmpBefore;
  await ctx.server.close();
  await rm(ctx.spoolDir, { recursive: true, force: true });
});

const csvUpload = async (server: TestServer, name: string, csv: string) => {
  const data = new FormData();
  data.append('name', name);
  data.append('input_keys[]', 'q');
  data.append('output_keys[]', 'a');
  data.append('split_keys[]', 'split');
  data.append('file', new Blob([csv], { type: 'text/csv' }), `${name}.csv`);
  const response = await fetch(`${server.baseUrl}/v1/datasets/upload?sync=true`, { method: 'POST', body: data });
  return { status: response.status, body: (await response.json()) as { detail?: string; data?: { dataset_id: string } } };
};

/** `rows` rows of q,a,split; row `bad` (1-based, after the header) replaced by `badRow`. */
const csvOf = (rows: number, bad: number | null, badRow: string): string => {
  const lines = ['q,a,split'];
  for (let i = 1; i <= rows; i++) lines.push(i === bad ? badRow : `question ${i},answer ${i},train`);
  return `${lines.join('\n')}\n`;
};

const count = (server: TestServer, query: ReturnType<typeof sql.unsafe>) =>
  server.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT (${query})::int AS n`);
const stagedEvents = (server: TestServer) => count(server, sql.unsafe`SELECT count(*) FROM events WHERE type = 'DatasetExamplesStaged'`);
const stagedRows = (server: TestServer) => count(server, sql.unsafe`SELECT count(*) FROM dataset_staged_examples`);
const settled = async (server: TestServer) => server.runner.waitFor(await server.store.headPosition(), 60_000);

test('given nothing, when a CSV with a ragged row after 1,000 good ones is uploaded, then 400 names the line and neither a dataset nor a staged example is left', async ({
  server,
  spoolDir,
}) => {
  const eventsBefore = await stagedEvents(server);
  const out = await csvUpload(server, 'ragged-late', csvOf(1500, 1200, 'question 1200,answer,train,extra'));
  await settled(server);
  assert.is(out.status, 400, JSON.stringify(out.body));
  assert.match(out.body.detail ?? '', 'line 1201');
  assert.equal((await callJson(server, 'GET', '/v1/datasets?name=ragged-late')).body.data, []);
  assert.is(await stagedEvents(server), eventsBefore, 'no staged event appended');
  assert.is(await stagedRows(server), 0, 'no staged row in the read model');
  assert.equal(await readdir(spoolDir), [], 'the spool file is removed');
});

test('given nothing, when a CSV names an empty split late in the file, then 400 and nothing is staged', async ({ server, spoolDir }) => {
  const eventsBefore = await stagedEvents(server);
  const out = await csvUpload(server, 'bad-split-late', csvOf(1500, 1400, 'question 1400,answer 1400, '));
  await settled(server);
  assert.is(out.status, 400, JSON.stringify(out.body));
  assert.match(out.body.detail ?? '', 'splits');
  assert.equal((await callJson(server, 'GET', '/v1/datasets?name=bad-split-late')).body.data, []);
  assert.is(await stagedEvents(server), eventsBefore, 'no staged event appended');
  assert.is(await stagedRows(server), 0);
  assert.equal(await readdir(spoolDir), []);
});

test('given a refused upload, when the same file is uploaded fixed, then it makes the dataset with every row once and no staged row stays', async ({
  server,
  spoolDir,
}) => {
  assert.is((await csvUpload(server, 'fixed-later', csvOf(1500, 700, '"unclosed,answer,train'))).status, 400);
  const out = await csvUpload(server, 'fixed-later', csvOf(1500, null, ''));
  await settled(server);
  assert.is(out.status, 200, JSON.stringify(out.body));
  const examples = (await callJson(server, 'GET', `/v1/datasets/${out.body.data!.dataset_id}/examples`)).body.data.examples;
  assert.is(examples.length, 1500);
  assert.is(new Set(examples.map((e: { input: { q: string } }) => e.input.q)).size, 1500);
  assert.is(await stagedRows(server), 0, 'the version took every staged row');
  assert.equal(await readdir(spoolDir), []);
});

test.run();

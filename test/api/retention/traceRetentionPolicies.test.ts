import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../../domain/eventstore/types.ts';
import { ingestSpans } from '../../../domain/tracing/ingestSpans.ts';
import { exportLine } from '../../../ops/commands/eventsExport.ts';
import { callJson, eventually } from '../../support/restClient.ts';
import { attrs, batch, newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';
import { wholeLog } from '../../support/wholeLog.ts';

const test = suite<{ server: TestServer }>('named trace retention policies are enforced', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const canary = (label: string) => `CANARY-${label}-${randomBytes(6).toString('hex')}`;
const DAY = 24 * 3600 * 1000;
const span = (text: string, start: Date, session: string) =>
  spanRecord({
    traceId: newTraceId(),
    startTimeUnixNano: (BigInt(start.getTime()) * 1_000_000n).toString(),
    endTimeUnixNano: (BigInt(start.getTime() + 1000) * 1_000_000n).toString(),
    attributes: attrs({ 'input.value': text, 'session.id': session }),
  });

const everything = (server: TestServer): Promise<StoredEvent[]> => wholeLog(server.store);
/** Events holding the text: the `events` table, or the whole log when it lives in EventStoreDB (the table is then empty). */
const inEventsTable = async (server: TestServer, text: string): Promise<number> =>
  server.config.database.eventStoreUrl
    ? (await everything(server)).filter((e) => exportLine(e).includes(text)).length
    : Number(await server.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM events WHERE data::text LIKE ${`%${text}%`}`));
const spanIds = async (server: TestServer, project: string): Promise<string[]> =>
  (await callJson(server, 'GET', `/v1/projects/${project}/spans`)).body.data.map(
    (s: { context: { span_id: string } }) => s.context.span_id,
  );
const graphqlSpanCount = async (server: TestServer, project: string): Promise<number> => {
  const projectId = (await callJson(server, 'GET', `/v1/projects/${project}`)).body.data.id;
  const reply = await callJson(server, 'POST', '/graphql', {
    query: `query($id: ID!) { node(id: $id) { ... on Project { spans(first: 10) { edges { node { spanId } } } } } }`,
    variables: { id: projectId },
  });
  return reply.body.data.node.spans.edges.length;
};

test('assigning a 7-day policy expires ten-day-old traces (spans, notes, sessions) from REST, GraphQL, the log, the export and a dump within a minute; recent traces and other projects stay; the policy shows its last run', async ({
  server,
}) => {
  const oldCanary = canary('OLD');
  const newCanary = canary('NEW');
  const otherCanary = canary('OTHER');
  const noteCanary = canary('NOTE');
  const tenDaysAgo = new Date(Date.now() - 10 * DAY);
  const shop = [span(oldCanary, tenDaysAgo, 'sess-old'), span(newCanary, new Date(), 'sess-new')];
  const lab = [span(otherCanary, tenDaysAgo, 'sess-lab')];
  const position = await ingestSpans(server.store, [batch('shop', shop), batch('lab', lab)], { actor: 'test', requestId: null });
  await server.runner.waitFor(position!, 60_000);
  const noted = await callJson(server, 'POST', '/v1/span_notes', { data: { span_id: shop[0]!.spanId, note: noteCanary } });
  assert.is(noted.status, 200, noted.text);
  await eventually(
    () => inEventsTable(server, noteCanary),
    (n) => n === 1,
  );

  const created = await callJson(server, 'POST', '/v1/trace_retention_policies', { name: 'week', max_days: 7 });
  assert.is(created.status, 201, created.text);
  const started = Date.now();
  const assigned = await callJson(server, 'PUT', '/v1/projects/shop/trace_retention_policy', { policy_id: created.body.data.id });
  assert.is(assigned.status, 200, assigned.text);

  await eventually(
    async () => (await inEventsTable(server, oldCanary)) + (await inEventsTable(server, noteCanary)),
    (n) => n === 0,
    60_000,
  );
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 60, `gone from the log after ${seconds} s`);
  console.log(`  old trace gone from the events table ${seconds.toFixed(1)} s after the PUT`);

  assert.equal(await spanIds(server, 'shop'), [shop[1]!.spanId]);
  assert.equal(await spanIds(server, 'lab'), [lab[0]!.spanId]);
  assert.is(await graphqlSpanCount(server, 'shop'), 1);
  assert.is((await callJson(server, 'GET', '/v1/sessions/sess-old')).status, 404);
  assert.is((await callJson(server, 'GET', '/v1/sessions/sess-new')).status, 200);
  const log = (await everything(server)).map(exportLine).join('');
  assert.not.ok(log.includes(oldCanary), 'export');
  assert.not.ok(log.includes(noteCanary), 'export (note)');
  assert.ok(log.includes(newCanary));
  assert.ok(log.includes(otherCanary));
  const url = (server.database as { url?: string }).url;
  if (url) {
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', url], { maxBuffer: 256 * 1024 * 1024 });
    assert.not.ok(stdout.includes(oldCanary), 'pg_dump');
    assert.ok(stdout.includes(newCanary));
  }

  // The run left one deletion event for the project, listing the trace: no event per trace.
  const deletions = (await everything(server)).filter((e) => ['TraceDeleted', 'TracesExpired'].includes(e.type));
  assert.equal(
    deletions.map((e) => [e.type, e.metadata.actor, (e.data as { traceIds: string[] }).traceIds]),
    [['TracesExpired', 'retention:1', [shop[0]!.traceId]]],
  );
  const audit = await eventually(
    async () => (await callJson(server, 'GET', '/v1/audit/events?type=TracesExpired')).body.data as { summary: string }[],
    (entries) => entries.length > 0,
  );
  assert.equal(
    audit.map((a) => a.summary.replace(/\d{4}-\S+Z/, 'CUTOFF')),
    ['1 trace expired in project "shop" by retention policy "week" (started before CUTOFF)'],
  );

  const record = (await everything(server)).find((e) => e.type === 'ContentRemoved')!;
  const removal = record.data as { kind: string; policyId: string; cutoff: string | null };
  assert.equal([removal.kind, removal.policyId], ['retention', '1']);
  assert.ok(
    removal.cutoff !== null && Date.parse(removal.cutoff) < Date.now() - 7 * DAY + 60_000,
    `the record names the cut-off: ${removal.cutoff}`,
  );
  const policy = await eventually(
    async () => (await callJson(server, 'GET', `/v1/trace_retention_policies/${created.body.data.id}`)).body.data,
    (p) => p.last_run?.removed.spans === 1,
  );
  assert.equal(
    { ...policy.last_run, ran_at: typeof policy.last_run.ran_at, started_before: typeof policy.last_run.started_before },
    {
      ran_at: 'string',
      started_before: 'string',
      max_traces: null,
      projects: 1,
      expired_traces: 1,
      removed: { traces: 1, spans: 1, annotations: 1 },
    },
  );
});

test.run();

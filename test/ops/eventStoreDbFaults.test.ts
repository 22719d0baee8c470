import * as grpc from '@grpc/grpc-js';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'slonik';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startEventStoreDb } from '../peers/eventStoreDb.ts';
import { freshDatabase, type TestDatabase } from '../support/database.ts';
import { grpcExport } from '../support/grpcExport.ts';
import { TEST_MAX_APPEND_SIZE } from '../support/eventStoreBackend.ts';
import { callJson, eventually } from '../support/restClient.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';

/**
 * The server with its log in EventStoreDB (the stand-in, persisting to a file so that stopping and
 * starting it keeps the log, as a restarted node does): absent at start, lost while ingesting,
 * back again, and a restart of Loupe on the same log.
 */
const test = suite('EventStoreDB as the log: start, outage, recovery, restart');

const jsonExport = (spanIds: readonly string[]) =>
  JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spanIds.map((spanId) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId,
              name: `s-${spanId}`,
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000500000000',
            })),
          },
        ],
      },
    ],
  });
const post = (server: TestServer, spanIds: readonly string[]) =>
  fetch(server.otlpHttpUrl, { method: 'POST', body: jsonExport(spanIds), headers: { 'content-type': 'application/json' } });

const spanNames = async (server: TestServer): Promise<string[]> => {
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await callJson(server, 'GET', `/v1/projects/default/spans?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (r.status !== 200) throw new Error(`spans: ${r.status} ${r.text}`);
    names.push(...(r.body.data as Array<{ name: string }>).map((s) => s.name));
    cursor = r.body.next_cursor;
  } while (cursor);
  return names.sort();
};

const withLog = async (work: (ctx: { database: TestDatabase; file: string }) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'loupe-esdb-faults-'));
  const sqlDatabase = await freshDatabase();
  try {
    await work({ database: sqlDatabase, file: join(dir, 'log.jsonl') });
  } finally {
    await sqlDatabase.close();
    await rm(dir, { recursive: true, force: true });
  }
};

const freePort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

test('absent at start: one clear log line, /readyz names the event log while the server waits, then it starts on it', async () => {
  await withLog(async ({ database, file }) => {
    const log = await startEventStoreDb({ file, maxAppendSize: TEST_MAX_APPEND_SIZE });
    await log.stop();
    const port = await freePort();
    const starting = startTestServer({
      database: { ...database, eventStoreUrl: log.url },
      eventLogRetryMs: 200,
      env: { SERVICE_PORT: String(port) },
    });
    const readyz = await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/readyz`).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { problems: string[] },
        })),
      (r) => r.status === 503,
      60_000,
    );
    assert.is(readyz.status, 503);
    assert.match(readyz.body.problems[0]!, /event log unreachable at esdb:\/\/127\.0\.0\.1:\d+\?tls=false/);
    assert.is((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'alive while it waits');
    await new Promise((r) => setTimeout(r, 1000));
    await log.start();
    const server = await starting;
    try {
      assert.is(server.ports.http, port, 'serves on the port it waited on');
      const unreachable = server.logLines.filter((l) => l.includes('event log unreachable'));
      assert.is(unreachable.length, 1, 'said once, not once per retry');
      assert.match(JSON.parse(unreachable[0]!).msg, /event log unreachable at esdb:\/\/127\.0\.0\.1:\d+\?tls=false \(/);
      assert.ok(server.logLines.some((l) => l.includes('answers; starting')));
      assert.is((await post(server, ['00000000000000a1'])).status, 200);
      assert.equal(
        await eventually(
          () => spanNames(server),
          (n) => n.length === 1,
        ),
        ['s-00000000000000a1'],
      );
      assert.is(await server.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM events`), 0, 'the log is in EventStoreDB, not in SQL');
      assert.is(
        await eventually(
          () => fetch(`${server.baseUrl}/readyz`).then((r) => r.status),
          (s) => s === 200,
        ),
        200,
      );
    } finally {
      await server.close();
      await log.close();
    }
  });
});

test('lost while ingesting: 503 and UNAVAILABLE, nothing acknowledged is lost, reads resume; a restart of Loupe neither loses nor repeats', async () => {
  await withLog(async ({ database, file }) => {
    const log = await startEventStoreDb({ file, maxAppendSize: TEST_MAX_APPEND_SIZE });
    const shared = { ...database, eventStoreUrl: log.url };
    const acknowledged: string[] = [];
    let server = await startTestServer({ database: shared });
    try {
      for (const id of ['00000000000000b1', '00000000000000b2']) {
        const r = await post(server, [id]);
        assert.is(r.status, 200);
        acknowledged.push(`s-${id}`);
      }
      assert.is(await grpcExport(server.grpcPort, '00000000000000b3', 's-00000000000000b3'), null);
      acknowledged.push('s-00000000000000b3');

      await log.stop();
      const refused = await post(server, ['00000000000000c1']);
      assert.is(refused.status, 503, await refused.clone().text());
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      assert.is((await grpcExport(server.grpcPort, '00000000000000c2', 's-00000000000000c2'))?.code, grpc.status.UNAVAILABLE);
      const readyz = await eventually(
        () => fetch(`${server.baseUrl}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { problems: string[] } })),
        (r) => r.status === 503,
        10_000,
      );
      assert.ok(
        readyz.body.problems.some((p) => p.includes('event log unreachable')),
        JSON.stringify(readyz.body),
      );

      await log.start();
      const back = await eventually(
        () => post(server, ['00000000000000d1']).then((r) => r.status),
        (s) => s === 200,
        30_000,
      );
      assert.is(back, 200);
      acknowledged.push('s-00000000000000d1');
      // The read models resume from their checkpoints: every acknowledged span once. A refused one
      // may or may not have been stored (never acknowledged), so only acknowledged ones are counted.
      const seen = await eventually(
        () => spanNames(server),
        (n) => acknowledged.every((a) => n.includes(a)),
      );
      for (const a of acknowledged) assert.is(seen.filter((n) => n === a).length, 1, `${a} exactly once`);

      await server.close();
      server = await startTestServer({ database: shared });
      assert.is((await post(server, ['00000000000000e2'])).status, 200);
      acknowledged.push('s-00000000000000e2');
      const after = await eventually(
        () => spanNames(server),
        (n) => acknowledged.every((a) => n.includes(a)),
      );
      for (const a of acknowledged) assert.is(after.filter((n) => n === a).length, 1, `${a} exactly once after a restart`);
      assert.equal(
        after.filter((n) => !n.startsWith('s-00000000000000c')),
        [...acknowledged].sort(),
      );
    } finally {
      await server.close().catch(() => undefined);
      await log.close();
    }
  });
});

test.run();

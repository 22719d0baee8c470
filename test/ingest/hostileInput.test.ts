import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as grpc from '@grpc/grpc-js';
import { createPostgresEventStore } from '../../domain/eventstore/postgresEventStore.ts';
import { rebuildProjection } from '../../projections/rebuildProjection.ts';
import { tracingProjection } from '../../projections/tracing/tracingProjection.ts';
import { freshDatabase, type TestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import {
  assertReadable,
  assertStillIngests,
  BAD_UTF8,
  deepJsonRequest,
  deepProtobufRequest,
  getJson,
  hex,
  kv,
  otlpSpan,
  postOtlp,
  rawHttp,
  request,
  sendGrpc,
  str,
  SURROGATE_BYTES_MARKER,
  toJson,
  toProtobuf,
  type OtlpRequest,
  type Sent,
} from './hostileCorpus.ts';

/**
 * The hostile-input suite: requests a hostile exporter would send, over OTLP/HTTP protobuf,
 * OTLP/HTTP JSON and gRPC. Each gets a clear answer (never a 5xx), what it stored reads back over
 * REST, and a normal span sent right after becomes visible within seconds: nothing ingest
 * acknowledges may stop the read models. (Gzip bombs and slow uploads: test/ingest/otlpHttp*.)
 */
type Context = { server: TestServer; db: TestDatabase };
const test = suite<Context>('hostile OTLP input never stops ingest', {} as Context);
test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.server = await startTestServer({ database: ctx.db });
});
test.after(async (ctx) => {
  await ctx.server.close();
  await ctx.db.close();
});

type Transport = 'protobuf' | 'json' | 'grpc';
const TRANSPORTS: readonly Transport[] = ['protobuf', 'json', 'grpc'];

const send = (server: TestServer, transport: Transport, r: OtlpRequest, headers: Record<string, string> = {}): Promise<Sent> => {
  if (transport === 'json') return postOtlp(server, toJson(r), 'application/json', headers);
  if (transport === 'protobuf') return postOtlp(server, toProtobuf(r), 'application/x-protobuf', headers);
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
  return sendGrpc(server, toProtobuf(r), metadata);
};

let seq = 0;
const projectFor = (what: string, transport: string) => `hostile-${what}-${transport}-${++seq}`;

/** The one assertion every case makes, then the canary. */
const survive = async (server: TestServer, what: string, sent: Sent, project: string | null, expected: readonly number[] = [200]) => {
  assert.ok(expected.includes(sent.status), `${what} → ${sent.status} ${sent.text.slice(0, 400)}`);
  if (project !== null) await assertReadable(server, project, what);
  await assertStillIngests(server, what);
};

const spansOf = async (server: TestServer, project: string) => {
  const r = await getJson(server, `/v1/projects/${encodeURIComponent(project)}/spans?limit=1000`);
  assert.is(r.status, 200, `GET spans of ${project}: ${r.text.slice(0, 300)}`);
  return r.body.data as { name: string; status_message: string; attributes: Record<string, unknown>; events: { name: string }[] }[];
};

/** Every string field of a request carrying `bad`, and the project name too. */
const everyStringField = (project: string, bad: string): OtlpRequest => ({
  resourceSpans: [
    {
      resource: { attributes: [kv('openinference.project.name', `${project}${bad}`), kv(`service.name${bad}`, `svc${bad}`)] },
      scopeSpans: [
        {
          spans: [
            otlpSpan({
              name: `name${bad}`,
              attributes: [
                kv(`key${bad}`, `value${bad}`),
                kv('session.id', `session${bad}`),
                kv('openinference.span.kind', `LLM${bad}`),
                kv('metadata', `{"k${bad === BAD_UTF8 ? '' : '\\u0000'}":"v\\ud800"}`),
                kv('list', { arrayValue: { values: [str(`a${bad}`), str(`b${bad}`)] } }),
                kv('map', { kvlistValue: { values: [kv(`inner${bad}`, `deep${bad}`)] } }),
              ],
              events: [
                { name: `event${bad}`, timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), attributes: [kv(`ek${bad}`, `ev${bad}`)] },
              ],
              status: { code: 2, message: `message${bad}` },
            }),
          ],
        },
      ],
    },
  ],
});

for (const transport of TRANSPORTS) {
  test(`${transport}: NUL in every string field is stored as U+FFFD`, async ({ server }) => {
    const project = projectFor('nul', transport);
    const sent = await send(server, transport, everyStringField(project, '\u0000'));
    await survive(server, `${transport} NUL`, sent, `${project}\ufffd`);
    const [span] = await spansOf(server, `${project}\ufffd`);
    assert.is(span!.name, 'name\ufffd');
    assert.is(span!.status_message, 'message\ufffd');
    assert.is(span!.attributes['key\ufffd'], 'value\ufffd');
    assert.is(span!.events[0]!.name, 'event\ufffd');
  });

  test(`${transport}: invalid UTF-8 in every string field`, async ({ server }) => {
    const project = projectFor('utf8', transport);
    const sent = await send(server, transport, everyStringField(project, BAD_UTF8));
    await survive(server, `${transport} invalid UTF-8`, sent, null, [200, 400]);
    const projects = (await getJson(server, `/v1/projects?limit=1000&name_contains=${project}`)).body.data as { name: string }[];
    for (const p of projects) await assertReadable(server, p.name, `${transport} invalid UTF-8`);
  });

  test(`${transport}: lone surrogates`, async ({ server }) => {
    const project = projectFor('surrogate', transport);
    // JSON carries the escape \ud800; protobuf the three bytes ED A0 80 (not UTF-8).
    const sent = await send(server, transport, everyStringField(project, transport === 'json' ? '\ud800' : SURROGATE_BYTES_MARKER));
    await survive(server, `${transport} lone surrogate`, sent, null, [200, 400]);
    const projects = (await getJson(server, `/v1/projects?limit=1000&name_contains=${project}`)).body.data as { name: string }[];
    for (const p of projects) await assertReadable(server, p.name, `${transport} lone surrogate`);
  });

  test(`${transport}: 10,000 attributes on one span`, async ({ server }) => {
    const project = projectFor('many', transport);
    const attributes = Array.from({ length: 10_000 }, (_, i) => kv(`attr.${i}`, `value ${i}`));
    const sent = await send(server, transport, request(project, [otlpSpan({ attributes })]));
    await survive(server, `${transport} 10,000 attributes`, sent, project);
    const [span] = await spansOf(server, project);
    assert.is(Object.keys(span!.attributes).length, 10_000);
  });

  test(`${transport}: attributes nested 2,000 deep`, async ({ server }) => {
    const project = projectFor('deep', transport);
    const { body } = transport === 'json' ? deepJsonRequest(project, 2000) : deepProtobufRequest(project, 2000);
    const sent =
      transport === 'json'
        ? await postOtlp(server, body, 'application/json')
        : transport === 'protobuf'
          ? await postOtlp(server, body, 'application/x-protobuf')
          : await sendGrpc(server, body);
    // Accepted with the nesting cut (or refused as unreadable): either way, never a 5xx.
    await survive(server, `${transport} 2,000-deep nesting`, sent, project, [200, 400]);
  });

  test(`${transport}: huge values`, async ({ server }) => {
    const project = projectFor('huge', transport);
    const big = 'x'.repeat(4 * 1024 * 1024);
    const sent = await send(
      server,
      transport,
      request(project, [otlpSpan({ attributes: [kv('input.value', big), kv('output.value', big)] })]),
    );
    await survive(server, `${transport} huge values`, sent, project);
  });

  test(`${transport}: wrong id lengths are rejected span by span (partial success)`, async ({ server }) => {
    const project = projectFor('ids', transport);
    const spans = [
      otlpSpan({ traceId: hex(15) }),
      otlpSpan({ spanId: hex(9) }),
      otlpSpan({ parentSpanId: hex(3) }),
      otlpSpan({ traceId: '00'.repeat(16) }),
      otlpSpan({ spanId: '' }),
      otlpSpan({ name: 'the valid one' }),
    ];
    const sent = await send(server, transport, request(project, spans));
    await survive(server, `${transport} wrong id lengths`, sent, project);
    assert.match(sent.text, /rejected/i);
    assert.equal(
      (await spansOf(server, project)).map((s) => s.name),
      ['the valid one'],
    );
  });

  test(`${transport}: start after end, and uint64-max timestamps`, async ({ server }) => {
    const project = projectFor('times', transport);
    const max = (2n ** 64n - 1n).toString();
    const now = BigInt(Date.now()) * 1_000_000n;
    const spans = [
      otlpSpan({ name: 'backwards', startTimeUnixNano: String(now + 5_000_000_000n), endTimeUnixNano: String(now) }),
      otlpSpan({ name: 'far future', startTimeUnixNano: max, endTimeUnixNano: max, events: [{ name: 'e', timeUnixNano: max }] }),
      otlpSpan({ name: 'one nanosecond', startTimeUnixNano: '1', endTimeUnixNano: '1' }),
    ];
    const sent = await send(server, transport, request(project, spans));
    await survive(server, `${transport} odd timestamps`, sent, project);
    assert.is((await spansOf(server, project)).length, 3);
  });

  test(`${transport}: 8 KB names, session id, keys; 200 KB status message`, async ({ server }) => {
    const project = projectFor('long', transport);
    const long = 'n'.repeat(8200);
    const span = otlpSpan({
      name: long,
      attributes: [kv('session.id', long), kv(long, 'v')],
      events: [{ name: long, timeUnixNano: '1' }],
      status: { code: 2, message: 'm'.repeat(200_000) },
    });
    const sent = await send(server, transport, request(project, [span]));
    await survive(server, `${transport} long names`, sent, project);
    const [stored] = await spansOf(server, project);
    assert.ok(Buffer.byteLength(stored!.name) <= 1024 && stored!.name.endsWith('…'));
  });

  test(`${transport}: an 8 KB project name is refused with a reason (resource attribute and header)`, async ({ server }) => {
    const long = `p${'x'.repeat(8000)}`;
    const viaResource = await send(server, transport, request(long, [otlpSpan()]));
    await survive(server, `${transport} long project name`, viaResource, null);
    assert.match(viaResource.text, /project name/);
    const viaHeader = await send(server, transport, request('ignored', [otlpSpan()]), { 'x-project-name': long });
    await survive(server, `${transport} long project header`, viaHeader, null);
    assert.match(viaHeader.text, /project name/);
  });

  test(`${transport}: token counts bigint cannot hold`, async ({ server }) => {
    const project = projectFor('tokens', transport);
    const traceId = hex(16);
    const llm = (prompt: object, completion: object) =>
      otlpSpan({
        traceId,
        attributes: [
          kv('openinference.span.kind', 'LLM'),
          { key: 'llm.token_count.prompt', value: prompt as never },
          { key: 'llm.token_count.completion', value: completion as never },
        ],
      });
    const spans = [
      llm({ intValue: '9223372036854775807' }, { doubleValue: 1e30 }),
      llm({ stringValue: '99999999999999999999' }, { intValue: '6000000000000000000' }),
      llm({ intValue: '6000000000000000000' }, { intValue: '-9223372036854775808' }),
    ];
    const sent = await send(server, transport, request(project, spans));
    await survive(server, `${transport} token counts`, sent, project);
    const traces = await getJson(server, `/v1/projects/${project}/traces`);
    assert.is(traces.status, 200);
    assert.ok(traces.body.data[0].token_count_prompt > 0);
  });

  test(`${transport}: metadata JSON with NUL, lone surrogates and 50,000 levels`, async ({ server }) => {
    const project = projectFor('metadata', transport);
    const deep = `${'{"a":'.repeat(50_000)}"\\u0000"${'}'.repeat(50_000)}`;
    const span = otlpSpan({
      attributes: [
        kv('metadata', deep),
        kv('tool.parameters', '{"x\\u0000":"\\udc00"}'),
        kv('llm.prompt_template.variables', `${'['.repeat(50_000)}${']'.repeat(50_000)}`),
      ],
    });
    const sent = await send(server, transport, request(project, [span]));
    await survive(server, `${transport} metadata JSON`, sent, project);
  });
}

test('JSON: numbers outside int64 and malformed bodies are a 400, never a 5xx', async ({ server }) => {
  const bodies = [
    JSON.stringify(request('hostile-int', [otlpSpan({ attributes: [{ key: 'n', value: { intValue: '99999999999999999999' } }] })])),
    JSON.stringify(request('hostile-int', [otlpSpan({ startTimeUnixNano: '18446744073709551616' })])),
    'null',
    '[]',
    '{"resourceSpans": 5}',
    '{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": 5}]}]}]}]}',
    '{"resourceSpans": [',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  ];
  for (const body of bodies) {
    const sent = await postOtlp(server, Buffer.from(body), 'application/json');
    assert.ok(sent.status === 400, `${body.slice(0, 80)} → ${sent.status} ${sent.text.slice(0, 200)}`);
  }
  await assertStillIngests(server, 'malformed JSON');
});

test('protobuf and gRPC: garbage bytes are a 400 / INVALID_ARGUMENT', async ({ server }) => {
  const garbage = [
    Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]),
    Buffer.from('not protobuf at all'),
    Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
  ];
  for (const body of garbage) {
    const http = await postOtlp(server, body, 'application/x-protobuf');
    assert.is(http.status, 400, `protobuf ${body.toString('hex')} → ${http.status}`);
    const rpc = await sendGrpc(server, body);
    assert.is(rpc.status, 400, `gRPC ${body.toString('hex')} → ${rpc.text}`);
  }
  await assertStillIngests(server, 'garbage protobuf');
});

test('lying Content-Length: shorter body, longer body, nonsense', async ({ server }) => {
  const body = toProtobuf(request('hostile-length', [otlpSpan()]));
  const head = (length: string) =>
    `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${length}\r\n\r\n`;
  const answers = [
    await rawHttp(server, Buffer.concat([Buffer.from(head('100000')), body.subarray(0, 10)])),
    await rawHttp(server, Buffer.concat([Buffer.from(head('5')), body])),
    await rawHttp(server, Buffer.concat([Buffer.from(head('abc')), body])),
    await rawHttp(server, Buffer.concat([Buffer.from(head('-1')), body])),
    await rawHttp(server, Buffer.concat([Buffer.from(head(String(2 ** 60))), body])),
  ];
  for (const answer of answers) assert.not.match(answer, /^HTTP\/1\.1 5\d\d/, answer.slice(0, 200));
  await assertStillIngests(server, 'lying Content-Length');
});

test('a NUL in the project header (sent raw) is refused by HTTP or stored as U+FFFD', async ({ server }) => {
  const body = toProtobuf(request('x', [otlpSpan()]));
  const answer = await rawHttp(
    server,
    Buffer.concat([
      Buffer.from(
        `POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nX-Project-Name: a\u0000b\r\nContent-Length: ${body.length}\r\n\r\n`,
        'latin1',
      ),
      body,
    ]),
  );
  assert.not.match(answer, /^HTTP\/1\.1 5\d\d/, answer.slice(0, 200));
  await assertStillIngests(server, 'NUL in header');
});

test('after all of the above: a restart and a rebuild replay the log, and a normal span is still visible', async (ctx) => {
  await ctx.server.close();
  ctx.server = await startTestServer({ database: ctx.db });
  await assertStillIngests(ctx.server, 'a restart');
  const before = (await getJson(ctx.server, '/v1/projects/canary/spans?limit=1000')).body.data.length as number;
  await rebuildProjection(ctx.db.pool, ctx.server.store, tracingProjection, { storeInTransaction: (tx) => createPostgresEventStore(tx) });
  await assertStillIngests(ctx.server, 'a rebuild');
  const after = (await getJson(ctx.server, '/v1/projects/canary/spans?limit=1000')).body.data.length as number;
  assert.is(after, before + 1, 'the rebuilt read model holds every canary');
});

test.run();

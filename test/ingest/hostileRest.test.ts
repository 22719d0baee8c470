import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { globalIdOf } from '../../api/http/globalId.ts';
import { seed } from '../support/restClient.ts';
import { newTraceId, spanRecord } from '../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../support/testServer.ts';
import { assertStillIngests } from './hostileCorpus.ts';

/**
 * The hostile-input suite, REST half: every tracing route's query parameters and path segments
 * with values a hostile client sends (SQL metacharacters, NUL, invalid percent-encoding, 10 KB
 * strings, garbage cursors, impossible times), and span bodies `POST /v1/projects/{p}/spans`
 * must store or refuse. Each answer is below 500 — a 4xx with `{detail, code}` — and a normal
 * span sent afterwards is still visible.
 */
const test = suite<{ server: TestServer }>('hostile REST input is a 4xx, never a 5xx', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await seed(ctx.server, 'p', [spanRecord({ traceId: newTraceId(), attributes: { 'session.id': { str: 's' } } })]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const b64 = (s: string) => encodeURIComponent(Buffer.from(s).toString('base64'));
const TEN_KB = 'a'.repeat(10 * 1024);

/** Raw (already percent-encoded) values for any parameter or path segment. */
const HOSTILE = [
  '%00',
  'a%00b',
  "'%20OR%201=1--",
  '%22%3B%20DROP%20TABLE%20spans%3B%20--',
  '%5C',
  '%25',
  '%FF%FE',
  '%ED%A0%80',
  '%E0%A4%A',
  '%F0%9F%98%80',
  TEN_KB,
  '-1',
  '99999999999999999999',
  '1e400',
  'NaN',
  b64('Span:1'),
  b64('Span:-1'),
  b64('Span:99999999999999999999'),
  b64(`Span:${TEN_KB}`),
  b64('\u0000:1'),
  '====',
  'null',
  '%7B%22a%22%3A1%7D',
];

const TIMES = [
  '2024-01-01T00:00:00%2B99:99',
  '2024-01-01T00:00:00-24:00',
  '2024-01-01T00:00:00%2B2360',
  '9999-12-31T23:59:59-23:59',
  '0001-01-01T00:00:00%2B23:59',
  '2024-13-01',
  '2024-01-01T00:00:60Z',
  '%2B275760-09-13',
  `2024-01-01T00:00:00.${'1'.repeat(10_000)}Z`,
];

const PARAMETERS: Record<string, readonly string[]> = {
  '/v1/projects': ['cursor', 'limit', 'name_contains', 'include_experiment_projects'],
  '/v1/projects/p/spans': [
    'cursor',
    'limit',
    'start_time',
    'end_time',
    'trace_id',
    'span_id',
    'parent_id',
    'name',
    'span_kind',
    'status_code',
    'attribute',
  ],
  '/v1/projects/p/spans/otlpv1': ['cursor', 'start_time', 'attribute'],
  '/v1/projects/p/traces': ['start_time', 'end_time', 'sort', 'order', 'limit', 'cursor', 'include_spans', 'session_identifier'],
  '/v1/projects/p/sessions': ['cursor', 'limit', 'order'],
};

const ATTRIBUTE_FILTERS = [
  'k:%22%5Cu0000%22',
  'k%5Cu0000:1',
  'k:%22%5Cud800%22',
  '%ED%A0%80:1',
  'k:1e400',
  `k:${TEN_KB}`,
  `${TEN_KB}:v`,
  'k:%7B%7D',
  'k:null',
  ':',
  'k',
];

const PATHS = [
  'GET /v1/projects/{}',
  'GET /v1/projects/{}/spans',
  'GET /v1/projects/{}/traces',
  'GET /v1/projects/{}/sessions',
  'GET /v1/sessions/{}',
  'DELETE /v1/spans/{}',
  'DELETE /v1/traces/{}',
  'DELETE /v1/sessions/{}',
  'PUT /v1/projects/{}',
  'DELETE /v1/projects/{}',
];

type Answer = { status: number; text: string; body: unknown };

const raw = async (server: TestServer, method: string, path: string, body?: unknown): Promise<Answer> => {
  const r = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: r.status, text, body: parsed };
};

/**
 * Below 500; a 4xx is JSON with a detail and a code. (431: Node's HTTP parser refuses a request
 * line over 16 KB before any route sees it.)
 */
const assertClear = (what: string, a: Answer) => {
  assert.ok(a.status < 500, `${what} → ${a.status} ${a.text.slice(0, 300)}`);
  if (a.status >= 400 && a.status !== 404 && a.status !== 431) {
    const b = a.body as { detail?: unknown; code?: unknown } | undefined;
    assert.ok(
      b && b.detail !== undefined && typeof b.code === 'string',
      `${what} → ${a.status} without {detail, code}: ${a.text.slice(0, 300)}`,
    );
  }
};

test('every query parameter of every tracing list route, with every hostile value', async ({ server }) => {
  for (const [path, parameters] of Object.entries(PARAMETERS)) {
    for (const parameter of parameters) {
      const values = [...HOSTILE, ...(parameter.endsWith('_time') ? TIMES : []), ...(parameter === 'attribute' ? ATTRIBUTE_FILTERS : [])];
      for (const value of values) {
        const url = `${path}?${parameter}=${value}`;
        assertClear(`GET ${url.slice(0, 120)}`, await raw(server, 'GET', url));
        // the same parameter twice, and with a hostile name
        assertClear(`GET ${url.slice(0, 120)} (twice)`, await raw(server, 'GET', `${url}&${parameter}=${value}`));
      }
      assertClear(
        `GET ${path} with a hostile parameter name`,
        await raw(server, 'GET', `${path}?${parameter}%00=1&%ED%A0%80=1&${TEN_KB}=1`),
      );
    }
  }
  await assertStillIngests(server, 'hostile query parameters');
});

test('the reported 500s: start_time offset +99:99, NUL in cursor, a garbage cursor name the parameter', async ({ server }) => {
  for (const [url, parameter] of [
    ['/v1/projects/p/spans?start_time=2024-01-01T00:00:00%2B99:99', 'start_time'],
    ['/v1/projects/p/traces?end_time=2024-01-01T00:00:00-99:99', 'end_time'],
    ['/v1/projects/p/spans?cursor=%00', 'cursor'],
    [`/v1/projects/p/spans?cursor=${b64('garbage')}`, 'cursor'],
    ['/v1/projects/p/spans?attribute=k:%22%5Cu0000%22', 'attribute'],
  ] as const) {
    const a = await raw(server, 'GET', url);
    assert.is(a.status, 422, `${url} → ${a.status} ${a.text}`);
    assert.match(String((a.body as { detail: string }).detail), parameter);
  }
});

test('every path segment, with every hostile value', async ({ server }) => {
  for (const route of PATHS) {
    const [method, template] = route.split(' ') as [string, string];
    for (const value of [...HOSTILE, b64('Project:1'), b64('Trace:1'), b64('ProjectSession:1'), b64(`Project:${TEN_KB}`)]) {
      const path = template.replace('{}', value);
      assertClear(`${method} ${path.slice(0, 120)}`, await raw(server, method, path, method === 'PUT' ? { description: 'd' } : undefined));
    }
  }
  await assertStillIngests(server, 'hostile path segments');
});

const span = (overrides: Record<string, unknown> = {}) => ({
  name: 'rest span',
  context: { trace_id: newTraceId(), span_id: newTraceId().slice(0, 16) },
  span_kind: 'LLM',
  start_time: '2024-01-01T00:00:00Z',
  end_time: '2024-01-01T00:00:01Z',
  status_code: 'OK',
  ...overrides,
});

/** A JSON object nested `levels` deep, as text (JSON.stringify would recurse). */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

test('POST /v1/projects/{p}/spans with hostile spans stores them storably or refuses them with a 4xx', async ({ server }) => {
  const bodies: [string, string | unknown][] = [
    ['attributes nested 5,000 deep', `{"data":[${JSON.stringify(span()).replace(/}$/, `,"attributes":{"deep":${deepObject(5000)}}}`)}]}`],
    [
      'attributes nested 50,000 deep',
      `{"data":[${JSON.stringify(span()).replace(/}$/, `,"attributes":{"deep":${deepObject(50_000)}}}`)}]}`,
    ],
    [
      'NUL and lone surrogates everywhere',
      {
        data: [
          span({
            name: 'n\u0000\ud800',
            status_message: 'm\u0000',
            attributes: { 'k\u0000': 'v\udc00', 'session.id': 's\u0000' },
            events: [{ name: 'e\u0000', timestamp: '2024-01-01T00:00:00Z', attributes: { x: '\u0000' } }],
          }),
        ],
      },
    ],
    ['8 KB names', { data: [span({ name: 'n'.repeat(8200), attributes: { 'session.id': 's'.repeat(8200), ['k'.repeat(8200)]: 1 } })] }],
    [
      '10 KB strings in every field',
      { data: [span({ name: TEN_KB, span_kind: TEN_KB, status_code: TEN_KB, status_message: TEN_KB, parent_id: TEN_KB })] },
    ],
    [
      'huge token counts',
      {
        data: [
          span({
            attributes: {
              'llm.token_count.prompt': 9223372036854775807,
              'llm.token_count.completion': 1e30,
              'llm.token_count.total': '99999999999999999999',
            },
          }),
        ],
      },
    ],
    [
      'times with impossible offsets',
      { data: [span({ start_time: '2024-01-01T00:00:00+99:99' }), span({ end_time: '9999-12-31T23:59:59-23:59' })] },
    ],
    ['10,000 attributes', { data: [span({ attributes: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`a${i}`, i])) })] }],
    ['wrong id lengths', { data: [span({ context: { trace_id: 'ab', span_id: TEN_KB } })] }],
    ['not a list', { data: { 0: span() } }],
    ['garbage', '{"data": [1, "x", null, []]}'],
  ];
  for (const [what, body] of bodies) {
    assertClear(`POST spans: ${what}`, await raw(server, 'POST', '/v1/projects/hostile-rest/spans', body));
  }
  // An 8 KB project name in the path: refused, never cut into another project.
  const long = await raw(server, 'POST', `/v1/projects/${'p'.repeat(8200)}/spans`, { data: [span()] });
  assert.ok(long.status >= 400 && long.status < 500, `8 KB project name → ${long.status} ${long.text.slice(0, 200)}`);
  for (const path of [
    '/v1/projects/hostile-rest/spans?limit=1000',
    '/v1/projects/hostile-rest/traces?include_spans=true',
    '/v1/projects/hostile-rest/sessions',
  ]) {
    assertClear(`GET ${path}`, await raw(server, 'GET', path));
  }
  await assertStillIngests(server, 'hostile REST spans');
});

test('project bodies: NUL, lone surrogates, 8 KB names and descriptions', async ({ server }) => {
  for (const body of [
    { name: 'a\u0000b' },
    { name: 'a\ud800b' },
    { name: 'n'.repeat(8200) },
    { name: 'ok-desc', description: 'd'.repeat(100_000) },
    { name: 'ok-desc2', description: 'd\ud800' },
  ]) {
    assertClear(`POST /v1/projects ${JSON.stringify(body).slice(0, 60)}`, await raw(server, 'POST', '/v1/projects', body));
  }
  const big = await raw(server, 'POST', '/v1/projects', { name: 'n'.repeat(8200) });
  assert.ok(big.status === 400 || big.status === 422, `an 8 KB project name → ${big.status}`);
  assertClear('PUT description with a lone surrogate', await raw(server, 'PUT', '/v1/projects/p', { description: '\udfff' }));
  assert.ok((await raw(server, 'GET', `/v1/projects/${globalIdOf('Project', 1)}`)).status < 500);
  await assertStillIngests(server, 'hostile project bodies');
});

test.run();

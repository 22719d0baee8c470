import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callJson, seed } from '../../support/restClient.ts';
import { newTraceId, spanRecord } from '../../support/spanFixtures.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

const test = suite<{ server: TestServer }>('tracing REST: bad input is a 4xx, never a 500', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
  await seed(ctx.server, 'p', [spanRecord({ traceId: newTraceId(), attributes: { 'session.id': { str: 's' } } })]);
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const b64 = (s: string) => encodeURIComponent(Buffer.from(s).toString('base64'));

test('odd identifiers, cursors, times and NUL characters', async ({ server }) => {
  const requests: [string, string, unknown?][] = [
    ['GET', '/v1/projects/%00'],
    ['GET', '/v1/projects/p/spans?name=%00'],
    ['GET', '/v1/projects/p/spans?attribute=k%00:v'],
    ['GET', '/v1/projects/p/spans?attribute=k:%22a%00%22'],
    ['GET', '/v1/projects/p/spans?start_time=2024-02-30T00:00:00Z'],
    ['GET', '/v1/projects/p/spans?start_time=0000-01-01'],
    ['GET', '/v1/projects/p/spans?end_time=2024-01-01T25:00:00'],
    ['GET', '/v1/projects/p/spans?attribute=k:1e400'],
    ['GET', `/v1/projects/p/spans?cursor=${b64('Span:99999999999999999999')}`],
    ['GET', `/v1/projects/p/traces?cursor=${b64('Trace:-1')}`],
    ['GET', `/v1/projects/${b64('Project:99999999999999999999')}`],
    ['GET', `/v1/projects/${b64('Project:abc')}/spans`],
    ['GET', '/v1/projects/p/traces?session_identifier=%00'],
    ['GET', `/v1/sessions/${b64('ProjectSession:0')}`],
    ['GET', '/v1/sessions/%E0%A4%A'],
    ['DELETE', `/v1/spans/${b64('Span:1.5')}`],
    ['DELETE', '/v1/traces/not-hex'],
    ['POST', '/v1/projects', { name: 'a\u0000b' }],
    ['POST', '/v1/projects', { name: 'x', gradient_start_color: 'red' }],
    ['POST', '/v1/projects', ['not', 'an', 'object']],
    ['PUT', '/v1/projects/p', { description: 'd\u0000' }],
    ['POST', '/v1/sessions/delete', { session_identifiers: ['\u0000'] }],
    ['POST', '/v1/sessions/delete', { session_identifiers: 'nope' }],
    ['POST', '/v1/projects/p/spans', { data: 'nope' }],
    [
      'POST',
      '/v1/projects/p/spans',
      {
        data: [
          {
            name: 'x\u0000',
            context: { trace_id: newTraceId(), span_id: 'ab'.repeat(8) },
            span_kind: 'x\u0000',
            start_time: '2024-01-01T00:00:00Z',
            end_time: '2024-01-01T00:00:00Z',
            status_code: 'OK',
            attributes: { 'k\u0000': '\u0000' },
          },
        ],
      },
    ],
  ];
  for (const [method, path, body] of requests) {
    const r = await callJson(server, method, path, body);
    assert.ok(r.status >= 200 && r.status < 500, `${method} ${path} → ${r.status} ${r.text}`);
  }
  // The NUL-carrying span above was stored with U+FFFD in place of each NUL.
  const names = (await callJson(server, 'GET', '/v1/projects/p/spans')).body.data.map((s: { name: string }) => s.name);
  assert.ok(names.includes('x\ufffd'), JSON.stringify(names));
});

test.run();

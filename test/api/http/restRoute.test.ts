import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DATASET_LABELS_STREAM } from '../../../domain/datasets/datasetStream.ts';
import type { DatasetLabelEvent } from '../../../domain/datasets/events.ts';
import { DomainError, type DomainErrorKind } from '../../../domain/errors.ts';
import { z } from 'zod';
import { answer, NO_CONTENT, raw, rawBody } from '../../../api/http/answer.ts';
import { AnswerMismatchError, checkAnswer } from '../../../api/http/checkAnswer.ts';
import { shapeError } from '../../../api/http/errorMiddleware.ts';
import type { HttpError } from '../../../api/http/httpError.ts';
import { httpErrorOf, refusedAt } from '../../../api/http/httpErrorOf.ts';
import { httpSpec, inStream } from '../../support/httpSpec.ts';
import { startTestServer, type TestServer } from '../../support/testServer.ts';

/**
 * The REST route kit (api/http/restRoute.ts) through real routes of the running server: NUL
 * characters refused before anything else, the query schema's 422 naming the parameter, a domain
 * refusal answered by the one map, and read-your-writes (the write's effect is readable at once).
 */
const test = suite<{ server: TestServer }>('REST route kit', {} as { server: TestServer });
test.before(async (ctx) => {
  ctx.server = await startTestServer();
});
test.after(async (ctx) => {
  await ctx.server.close();
});

const KINDS: readonly DomainErrorKind[] = ['invalid', 'conflict', 'not_found', 'forbidden', 'unauthenticated', 'locked'];

test('the kit and the error middleware answer every DomainError kind alike (unauthenticated 401, locked 429)', () => {
  const statuses = KINDS.map((kind) => {
    const error = new DomainError(`some_${kind}`, 'why', kind);
    const mapped = httpErrorOf(error) as HttpError;
    const shaped = shapeError(error)!;
    assert.is(shaped.status, mapped.status, kind);
    assert.is(shaped.code, mapped.code, kind);
    assert.is(shaped.detail, 'why', kind);
    return mapped.status;
  });
  assert.equal(statuses, [400, 409, 404, 403, 401, 429]);
});

const declared = {
  200: z.object({ data: z.object({ id: z.string(), name: z.string() }) }),
  204: NO_CONTENT,
  206: rawBody('text/csv'),
};

/** What checkAnswer throws for a result (null: it accepts it). */
const mismatch = (result: unknown): string | null => {
  try {
    checkAnswer('GET /v1/things', declared, result, 200);
    return null;
  } catch (error) {
    assert.instance(error, AnswerMismatchError);
    return (error as Error).message;
  }
};

test('an answer that fits its route’s declared responses passes the check', () => {
  assert.is(mismatch({ data: { id: 'a', name: 'b' } }), null);
  assert.is(mismatch(answer(204, undefined)), null);
  assert.is(mismatch(raw({ status: 206, type: 'text/csv', body: 'a,b\n' })), null);
});

test('an answer its route does not declare is a mismatch naming the route and what is wrong', () => {
  assert.is(
    mismatch({ data: { id: 'a' } }),
    'GET /v1/things answered what it does not declare: response.data.name: Invalid input: expected string, received undefined',
  );
  assert.match(mismatch(answer(201, { data: { id: 'a', name: 'b' } }))!, /status 201 is not declared/);
  assert.match(mismatch(answer(204, { data: 1 }))!, /status 204 has no body/);
  assert.match(mismatch(raw({ type: 'text/csv', body: '' }))!, /status 200 answers JSON, not raw text\/csv/);
  assert.match(mismatch(answer(206, 'a,b'))!, /status 206 answers raw text\/csv/);
  // The test that hits one reads it in the answer: a 500 with its own code, not a bare internal error.
  const shaped = shapeError(new AnswerMismatchError('GET /v1/things', 'status 201 is not declared'))!;
  assert.equal([shaped.status, shaped.code], [500, 'answer_not_declared']);
  assert.match(shaped.detail, /GET \/v1\/things answered what it does not declare/);
});

test('a field rule the domain refuses is a 422 naming the field; other errors pass unchanged', () => {
  const refused = refusedAt('body.name: ', new DomainError('bad_name', 'must not be empty')) as HttpError;
  assert.equal([refused.status, refused.code, refused.message], [422, 'bad_name', 'body.name: must not be empty']);
  const conflict = new DomainError('taken', 'exists', 'conflict');
  assert.is(refusedAt('body.', conflict), conflict);
  const other = new Error('boom');
  assert.is(httpErrorOf(other), other);
});

test('given nothing, when a path parameter holds a NUL character, then 422 naming it and nothing is written', async ({ server }) => {
  await httpSpec(server)
    .given()
    .when('DELETE', '/v1/datasets/abc%00def')
    .then({
      status: 422,
      body: { detail: 'path.id: must not contain NUL characters', code: 'invalid_parameter' },
      events: [],
    });
});

test('given nothing, when a query parameter does not fit the route’s schema, then 422 naming it', async ({ server }) => {
  await httpSpec(server)
    .given()
    .when('GET', '/v1/datasets?limit=0')
    .then({
      status: 422,
      body: (body: { code: string; detail: string }) => {
        assert.is(body.code, 'invalid_query');
        assert.match(body.detail, /^query\.limit: /);
      },
      events: [],
    });
});

const gold: DatasetLabelEvent = {
  type: 'DatasetLabelCreated',
  data: { labelId: 1, label: { name: 'gold', color: '#1c76fc', description: null } },
};

test('given a label, when another is created with its name, then the domain’s conflict is a 409 with its code', async ({ server }) => {
  await httpSpec(server)
    .given(inStream(DATASET_LABELS_STREAM, gold))
    .when('POST', '/v1/dataset_labels', { body: { name: 'gold', color: '#000000' } })
    .then({ status: 409, body: { detail: 'A dataset label named "gold" already exists', code: 'dataset_label_exists' }, events: [] });
});

test('given nothing new, when a label is created, then the next read already shows it (read-your-writes)', async ({ server }) => {
  const created = await httpSpec(server)
    .given()
    .when('POST', '/v1/dataset_labels', { body: { name: 'silver', color: '#aaaaaa' } })
    .then({
      status: 201,
      events: (events) =>
        assert.equal(
          events.map((e) => e.type),
          ['DatasetLabelCreated'],
        ),
    });
  const id = (created.body as { data: { id: string } }).data.id;
  const list = (await (await fetch(`${server.baseUrl}/v1/dataset_labels`)).json()) as { data: { id: string; name: string }[] };
  assert.ok(list.data.some((l) => l.id === id && l.name === 'silver'));
});

test.run();

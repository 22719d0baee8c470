import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventStore, NewEvent, Position, StoredEvent } from '../../../domain/eventstore/types.ts';
import { comparePosition, positionToString, START, WrongExpectedRevisionError } from '../../../domain/eventstore/types.ts';

/**
 * The one contract every event-store adapter passes. An adapter that can hold an append's
 * transaction open supplies `appendHeldOpen`, which enables the late-commit test.
 */
export type ContractSubject = {
  readonly store: EventStore;
  /** false while an adapter cannot remove content yet (its removal tests are skipped, loudly). */
  readonly removesContent?: false;
  readonly close: () => Promise<void>;
  readonly appendHeldOpen?: (stream: string, events: readonly NewEvent[]) => Promise<{ commit: () => Promise<void> }>;
};

const meta = { actor: 'test', requestId: null, time: new Date(0).toISOString(), causation: null };
export const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: meta });

const readEverything = async (store: EventStore, pageSize: number): Promise<StoredEvent[]> => {
  const all: StoredEvent[] = [];
  let after: Position = START;
  for (;;) {
    const page = await store.readAll(after, pageSize);
    if (page.length === 0) return all;
    all.push(...page);
    after = page[page.length - 1]!.position;
  }
};

/**
 * `readAll` shows an event only once every older transaction has ended (the gap-free horizon), and
 * on a shared Postgres server another database's open transaction holds that horizon too: a
 * reader polls, as the projection runner does.
 */
const readAllUntilSeen = async (store: EventStore, stream: string): Promise<StoredEvent> => {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = (await readEverything(store, 100)).find((e) => e.stream === stream);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`readAll never showed an event of ${stream}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

export const eventStoreContract = (name: string, open: () => Promise<ContractSubject>) => {
  const test = suite<{ subject: ContractSubject }>(`event store contract: ${name}`, {} as { subject: ContractSubject });
  test.before.each(async (ctx) => {
    ctx.subject = await open();
  });
  test.after.each(async (ctx) => {
    await ctx.subject.close();
  });

  test('appends and reads a stream back in revision order with metadata', async ({ subject: { store } }) => {
    const first = await store.appendToStream('order-1', [ev('Placed', { n: 1 }), ev('Paid', { n: 2 })], 'no_stream');
    assert.is(first.revision, 1);
    await store.appendToStream('order-1', [ev('Shipped')], 1);
    const events = await store.readStream('order-1');
    assert.equal(
      events.map((e) => [e.type, e.revision]),
      [
        ['Placed', 0],
        ['Paid', 1],
        ['Shipped', 2],
      ],
    );
    assert.equal(events[0]!.data, { n: 1 });
    assert.equal(events[0]!.metadata, meta);
    assert.is(events[0]!.schemaVersion, 1);
    assert.ok(events.every((e, i) => i === 0 || comparePosition(events[i - 1]!.position, e.position) < 0));
    assert.equal(await store.readStream('missing'), []);
  });

  test('optimistic concurrency: a stale expected revision is refused and nothing is written', async ({ subject: { store } }) => {
    await store.appendToStream('acct-1', [ev('Opened')], 'no_stream');
    try {
      await store.appendToStream('acct-1', [ev('Opened')], 'no_stream');
      assert.unreachable('no_stream on an existing stream must fail');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
    }
    await store.appendToStream('acct-1', [ev('Deposited')], 0);
    try {
      await store.appendToStream('acct-1', [ev('Withdrawn')], 0);
      assert.unreachable('revision 0 is stale');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
      assert.is((error as WrongExpectedRevisionError).actual, 1);
    }
    try {
      await store.appendToStream('acct-1', [ev('Withdrawn')], 7);
      assert.unreachable('revision 7 is ahead of the stream');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
    }
    assert.equal(
      (await store.readStream('acct-1')).map((e) => e.type),
      ['Opened', 'Deposited'],
    );
  });

  test('concurrent appends with the same expected revision: exactly one wins', async ({ subject: { store } }) => {
    await store.appendToStream('race', [ev('Started')], 'no_stream');
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => store.appendToStream('race', [ev('Step', { i })], 0)));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => (r as PromiseRejectedResult).reason instanceof WrongExpectedRevisionError),
    );
    assert.is((await store.readStream('race')).length, 2);
  });

  test("'any' appends never conflict and all land", async ({ subject: { store } }) => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.appendToStream('log', [ev('Line', { i })], 'any')));
    const events = await store.readStream('log');
    assert.equal(
      events.map((e) => e.revision),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
  });

  test('a stored event never changes: neither the appended object nor one read back can alter the log', async ({ subject: { store } }) => {
    const sent = ev('Noted', { tags: ['a'] });
    await store.appendToStream('note-1', [sent], 'no_stream');
    (sent.data as { tags: string[] }).tags.push('sent-later');
    const read = await store.readStream('note-1');
    (read[0]!.data as { tags: string[] }).tags.push('read-later');
    assert.equal((await store.readStream('note-1'))[0]!.data, { tags: ['a'] });
    assert.equal((await readAllUntilSeen(store, 'note-1')).data, { tags: ['a'] });
  });

  test('10k events paged through readAll come back once each, in one global order', async ({ subject: { store } }) => {
    for (let batch = 0; batch < 20; batch++) {
      const events = Array.from({ length: 500 }, (_, i) => ev('Tick', { n: batch * 500 + i }));
      await store.appendToStream(`ticks-${batch % 3}`, events, 'any');
    }
    // Polled for the same reason as readAllUntilSeen: the horizon may trail the last commit.
    let all = await readEverything(store, 733);
    for (const deadline = Date.now() + 15_000; all.length < 10_000 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 50));
      all = await readEverything(store, 733);
    }
    assert.is(all.length, 10_000);
    assert.equal(
      all.map((e) => (e.data as { n: number }).n),
      Array.from({ length: 10_000 }, (_, i) => i),
    );
    assert.ok(all.every((e, i) => i === 0 || comparePosition(all[i - 1]!.position, e.position) < 0));
    const head = await store.headPosition();
    assert.equal(head, all[all.length - 1]!.position);
    assert.equal(await store.readAll(head, 10), []);
  });

  test('readAll with a type filter: only those types, in the same global order, paged', async ({ subject: { store } }) => {
    await store.appendToStream('a', [ev('Noise'), ev('Wanted', { n: 1 }), ev('Noise')], 'no_stream');
    await store.appendToStream('b', [ev('Other', { n: 2 }), ev('Noise'), ev('Wanted', { n: 3 })], 'no_stream');
    const everything = await readAllUntilSeen(store, 'b').then(() => readEverything(store, 100));
    const expected = everything.filter((e) => e.type === 'Wanted' || e.type === 'Other').map((e) => e.id);
    const paged: StoredEvent[] = [];
    for (let after: Position = START; ; ) {
      const page = await store.readAll(after, 1, { types: ['Wanted', 'Other'] });
      if (page.length === 0) break;
      paged.push(...page);
      after = page[0]!.position;
    }
    assert.equal(
      paged.map((e) => e.id),
      expected,
    );
    assert.equal(
      paged.map((e) => e.data),
      [{ n: 1 }, { n: 2 }, { n: 3 }],
    );
    assert.equal(await store.readAll(START, 10, { types: ['Absent'] }), []);
  });

  test('removeContent rewrites only the data of the chosen events, records the removal in the same step, keeps every position', async ({
    subject: { store, removesContent },
  }) => {
    if (removesContent === false) return console.warn('SKIPPED: this adapter cannot remove content yet');
    const original = { keep: 'k', secret: 'canary-1' };
    await store.appendToStream('batch-1', [ev('Batch', original), ev('Batch', { secret: 'canary-2' })], 'no_stream');
    await store.appendToStream('batch-2', [ev('Batch', { keep: 'other' })], 'no_stream');
    const before = await readAllUntilSeen(store, 'batch-2').then(() => readEverything(store, 100));
    const [first, second, third] = before;
    const removal = {
      record: ev('ContentRemoved', { kind: 'erasure', ids: ['t1'] }),
      eventIds: [first!.id, second!.id, third!.id],
      rewrite: (e: StoredEvent) => {
        const data = e.data as Record<string, unknown>;
        if (!('secret' in data)) return undefined; // nothing of it to remove
        return 'keep' in data ? { keep: data.keep } : null;
      },
    };
    const result = await store.removeContent(removal);
    assert.ok(result, 'something was removed');
    assert.equal(
      result.erased.map((e) => e.id),
      [first!.id, second!.id],
    );
    const after = await readAllUntilSeen(store, 'removals').then(() => readEverything(store, 100));
    assert.equal(
      after.slice(0, 3).map((e) => [e.id, e.stream, e.revision, e.type, e.metadata, e.position]),
      before.map((e) => [e.id, e.stream, e.revision, e.type, e.metadata, e.position]),
      'ids, streams, revisions, types, metadata and positions of what remains never change',
    );
    assert.equal(
      after.slice(0, 3).map((e) => e.data),
      [{ keep: 'k' }, {}, { keep: 'other' }],
    );
    const record = after[3]!;
    assert.is(after.length, 4);
    assert.equal([record.stream, record.type], ['removals', 'ContentRemoved']);
    assert.equal(record.position, result.position);
    assert.ok(comparePosition(record.position, third!.position) > 0, 'the record comes after everything before it');
    assert.equal(record.data, {
      kind: 'erasure',
      ids: ['t1'],
      erased: [
        { id: first!.id, stream: 'batch-1', position: positionToString(first!.position) },
        { id: second!.id, stream: 'batch-1', position: positionToString(second!.position) },
      ],
    });
    const sha = (data: unknown) => createHash('sha256').update(JSON.stringify(data)).digest('hex');
    assert.equal(after[0]!.erased, { by: result.position, dataSha256: sha(original) });
    assert.equal(after[1]!.erased, { by: result.position, dataSha256: sha({ secret: 'canary-2' }) });
    assert.is(after[2]!.erased, undefined);
    assert.equal(
      (await store.readStream('batch-1')).map((e) => e.data),
      [{ keep: 'k' }, {}],
    );
    assert.not.match(JSON.stringify(after.map((e) => e.data)), /canary/);

    assert.is(await store.removeContent(removal), null, 'removing what is gone appends no second record');
    const again = await store.removeContent({ ...removal, rewrite: (e) => (e.id === first!.id ? null : undefined) });
    assert.ok(again);
    const [rewritten] = await store.readStream('batch-1');
    assert.equal(rewritten!.data, {});
    assert.equal(rewritten!.erased, { by: again.position, dataSha256: sha(original) }, 'a second removal keeps the ORIGINAL hash');
    assert.equal(
      (await store.readStream('removals')).map((e) => e.revision),
      [0, 1],
    );
  });

  test('a reader paging through readAll while removals run never fails and never skips an event', async ({
    subject: { store, removesContent },
  }) => {
    if (removesContent === false) return console.warn('SKIPPED: this adapter cannot remove content yet');
    for (let i = 0; i < 20; i++) await store.appendToStream(`s-${i}`, [ev('Batch', { i, secret: 'x'.repeat(100) })], 'no_stream');
    const all = await readAllUntilSeen(store, 's-19').then(() => readEverything(store, 100));
    const removals = (async () => {
      for (const e of all) {
        await store.removeContent({
          record: ev('ContentRemoved', { kind: 'erasure' }),
          eventIds: [e.id],
          rewrite: (x) => ({ i: (x.data as { i: number }).i }),
        });
      }
    })();
    const seen: number[] = [];
    let after: Position = START;
    for (;;) {
      const page = await store.readAll(after, 2, { types: ['Batch'] });
      if (page.length === 0) break;
      seen.push(...page.map((e) => (e.data as { i: number }).i));
      after = page[page.length - 1]!.position;
    }
    await removals;
    assert.equal(
      seen,
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  test('a reader polling while one append commits late still delivers both, in a stable order', async ({ subject }) => {
    if (!subject.appendHeldOpen) return; // adapter cannot hold a transaction open (single session)
    const { store } = subject;
    const delivered: StoredEvent[] = [];
    let checkpoint: Position = START;
    const poll = async () => {
      const page = await store.readAll(checkpoint, 100);
      delivered.push(...page);
      if (page.length) checkpoint = page[page.length - 1]!.position;
    };
    // A takes its position first but commits last; B commits in between.
    const held = await subject.appendHeldOpen('late', [ev('Early', { who: 'A' })]);
    await store.appendToStream('prompt', [ev('Prompt', { who: 'B' })], 'no_stream');
    await poll();
    await poll();
    await held.commit();
    // Polled, as readAllUntilSeen: on a shared Postgres server a transaction of another database
    // (another test file's) can hold the read horizon back for a while after A commits.
    for (const deadline = Date.now() + 15_000; delivered.length < 2 && Date.now() < deadline; ) {
      await poll();
      if (delivered.length < 2) await new Promise((r) => setTimeout(r, 50));
    }
    await poll();
    assert.equal(delivered.map((e) => (e.data as { who: string }).who).sort(), ['A', 'B'], 'the reader must deliver both events');
    const first = (await readEverything(store, 1)).map((e) => e.id);
    const second = (await readEverything(store, 100)).map((e) => e.id);
    assert.equal(
      delivered.map((e) => e.id),
      first,
      'delivery order equals a later full read',
    );
    assert.equal(first, second);
  });

  test('an event appended with an id keeps it (a copied log keeps its ids)', async ({ subject: { store } }) => {
    const id = '6f1c2a4e-8d3b-4c5a-9e7f-1a2b3c4d5e6f';
    await store.appendToStream('kept-id', [{ ...ev('Kept'), id }, ev('Fresh')], 'no_stream');
    const [kept, fresh] = await store.readStream('kept-id');
    assert.is(kept!.id, id);
    assert.ok(fresh!.id && fresh!.id !== id);
  });

  test('readAll bounded by bytes: stops before the events that would exceed them, but returns at least one', async ({
    subject: { store },
  }) => {
    const big = 'x'.repeat(10_000);
    await store.appendToStream('sized', [ev('Big', { big }), ev('Big', { big }), ev('Big', { big }), ev('Small')], 'no_stream');
    await readAllUntilSeen(store, 'sized');
    const first = await store.readAll(START, 10, { maxBytes: 25_000 });
    assert.is(first.length, 2, 'two 10 kB events fit in 25 kB, the third does not');
    assert.is((await store.readAll(START, 10, { maxBytes: 1 })).length, 1, 'one event even when it alone exceeds the bound');
    assert.is((await store.readAll(START, 10)).length, 4);
  });

  test('backlog: none when caught up; some, and since when, when events follow', async ({ subject: { store } }) => {
    assert.equal(await store.backlog(START, { cap: 1000 }), { events: 0, oldestRecordedAt: null });
    const started = Date.now();
    await store.appendToStream('lagging', [ev('A'), ev('B'), ev('C')], 'no_stream');
    await readAllUntilSeen(store, 'lagging');
    const all = await readEverything(store, 100);
    const pending = await store.backlog(START, { cap: 1000 });
    assert.ok(pending.events >= 1 && pending.events <= 1000, `events ${pending.events}`);
    assert.ok(pending.oldestRecordedAt !== null);
    assert.ok(Math.abs(pending.oldestRecordedAt!.getTime() - started) < 60_000, 'recorded about now');
    assert.equal(await store.backlog(all.at(-1)!.position, { cap: 1000 }), { events: 0, oldestRecordedAt: null });
    const through = await store.backlog(START, { cap: 1000, through: all[0]!.position });
    assert.is(through.events, 1, 'through the first event: just it');
  });

  return test;
};

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventStore, NewEvent, Position, StoredEvent } from '../../../domain/eventstore/types.ts';
import { comparePosition, START, WrongExpectedRevisionError } from '../../../domain/eventstore/types.ts';

/**
 * The one contract every event-store adapter passes. An adapter that can hold an append's
 * transaction open supplies `appendHeldOpen`, which enables the late-commit test.
 */
export type ContractSubject = {
  readonly store: EventStore;
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

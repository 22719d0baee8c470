import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { annotationKey } from '../../../domain/annotations/annotationKey.ts';
import { distinctAnnotations } from '../../../domain/annotations/distinctAnnotations.ts';
import {
  annotationSlots,
  erasedAnnotationsOf,
  withoutAnnotations,
  type AnnotationTargets,
} from '../../../domain/annotations/erasedAnnotations.ts';
import type { AnnotationRecord, AnnotationsRecorded } from '../../../domain/annotations/events.ts';
import { annotationRecord } from '../../support/annotationFixtures.ts';

const a = (over: Partial<AnnotationRecord> = {}): AnnotationRecord => annotationRecord({ targetId: 'keep', ...over });
const erasing = (over: Partial<Record<keyof AnnotationTargets, string[]>>): AnnotationTargets => ({
  spanIds: new Set(over.spanIds ?? []),
  traceIds: new Set(over.traceIds ?? []),
  sessionIds: new Set(over.sessionIds ?? []),
});
const event = (...annotations: unknown[]) => ({ source: 'API', annotations }) as AnnotationsRecorded['data'];
/** The names in the event's slots as the projector meets them, `-` for a removed one. */
const slotNames = (data: unknown) =>
  annotationSlots(distinctAnnotations((data as AnnotationsRecorded['data']).annotations), erasedAnnotationsOf(data)).map((s) =>
    s.erased ? '-' : s.annotation.annotation.name,
  );

test('given an event with annotations on an erased span among others, when they are removed, then each leaves only its slot among the distinct keys', () => {
  const data = event(
    a({ name: 'x' }),
    a({ targetId: 'gone', name: 'y', explanation: 'secret' }),
    null, // junk: no slot, and on no target
    a({ name: 'z' }),
    a({ target: 'document', targetId: 'gone', documentPosition: 2, name: 'doc' }),
    a({ name: 'x', label: 'again' }), // the last occurrence places x after z
  );
  assert.equal(slotNames(data), ['y', 'z', 'doc', 'x']);
  const rewritten = withoutAnnotations(data, erasing({ spanIds: ['gone'] }))!;
  assert.equal(rewritten.erased, [{ at: 0 }, { at: 2 }]);
  assert.equal(rewritten.annotations, [a({ name: 'x' }), null, a({ name: 'z' }), a({ name: 'x', label: 'again' })]);
  assert.equal(slotNames(rewritten), ['-', 'z', '-', 'x']);
  assert.not.ok(JSON.stringify(rewritten.erased).includes('gone'), 'a stub holds no content, not even its target');
});

test('given every occurrence of a key on an erased trace, then all go and its one slot stays', () => {
  const data = event(
    a({ target: 'trace', targetId: 't1', name: 'n' }),
    a({ name: 'k' }),
    a({ target: 'trace', targetId: 't1', name: 'n' }),
  );
  const rewritten = withoutAnnotations(data, erasing({ traceIds: ['t1'] }))!;
  assert.equal(rewritten.annotations, [a({ name: 'k' })]);
  assert.equal(rewritten.erased, [{ at: 1 }]);
});

test('given an event a removal already rewrote, when a second removal takes more, then the stubs compose into the slots of both', () => {
  const data = event(a({ targetId: 's1', name: 'a' }), a({ name: 'b' }), a({ targetId: 's2', name: 'c' }), a({ name: 'd' }));
  const once = withoutAnnotations(data, erasing({ spanIds: ['s2'] }))!;
  assert.equal(once.erased, [{ at: 2 }]);
  const twice = withoutAnnotations(once, erasing({ spanIds: ['s1'] }))!;
  assert.equal(twice.erased, [{ at: 0 }, { at: 2 }]);
  assert.equal(slotNames(twice), ['-', 'b', '-', 'd']);
  assert.equal(twice, withoutAnnotations(data, erasing({ spanIds: ['s1', 's2'] })), 'the same as one removal of both');
  const all = withoutAnnotations(twice, erasing({ spanIds: ['keep'] }))!;
  assert.equal(all.annotations, []);
  assert.equal(all.erased, [{ at: 0 }, { at: 1 }, { at: 2 }, { at: 3 }], 'an emptied event still counts its slots');
});

test('given no annotation on the erased targets, then nothing to rewrite, also for an event rewritten before', () => {
  const data = event(a({ name: 'b' }), a({ targetId: 's2', name: 'c' }));
  assert.is(withoutAnnotations(data, erasing({ spanIds: ['other'], sessionIds: ['keep'] })), undefined);
  const once = withoutAnnotations(data, erasing({ spanIds: ['s2'] }))!;
  assert.is(withoutAnnotations(once, erasing({ spanIds: ['s2'] })), undefined);
  assert.is(withoutAnnotations({ annotations: 'no' }, erasing({ spanIds: ['s2'] })), undefined);
  assert.is(withoutAnnotations(null, erasing({ spanIds: ['s2'] })), undefined);
});

test('given a crafted event with junk among its stubs, then only well-formed slots count, each once', () => {
  const data = {
    ...event(a({ name: 'kept' })),
    erased: [null, 'x', {}, { at: -1 }, { at: 1.5 }, { at: '0' }, { at: 2 ** 60 }, { at: 3 }, { at: 3 }],
  };
  assert.equal(erasedAnnotationsOf(data), [{ at: 3 }]);
  assert.equal(erasedAnnotationsOf({ erased: 'no' }), []);
  assert.equal(slotNames(data), ['kept', '-'], 'a slot past the end comes after the annotations');
});

test('the upsert key is unchanged (rows store it): length-prefixed parts, hashed', () => {
  assert.is(
    annotationKey(a({ target: 'document', targetId: 'span1', documentPosition: 3, name: 'rel', identifier: '' })),
    // sha256 of "8:document|5:span1|1:3|3:rel|0:"
    '867e568da576ad06ed38c86f945e3335ab781a9f68b52fa337e5356018b215f4',
  );
});

test.run();

import type { Position } from '../eventstore/types.ts';
import { comparePosition, positionToString } from '../eventstore/types.ts';
import type { AuditKey } from './auditKey.ts';
import { GENESIS_SEAL, metadataHash, sealHasher, type SealParts } from './sealChain.ts';
import { canonicalMetadata } from './sealInput.ts';
import { pageCursor } from './pageCursor.ts';
import type { Checkpoint, SealHead, SealRecord } from './sealRecord.ts';

export const FINDINGS = {
  data_changed: 'data changed',
  metadata_changed: 'metadata changed',
  header_changed: 'stream, revision or type changed',
  event_replaced: 'event replaced',
  event_missing: 'event missing',
  events_reordered: 'events reordered',
  event_inserted: 'event inserted',
  tail_truncated: 'tail truncated',
  removed_without_record: 'content removed without a removal record',
  seal_altered: 'seal record altered',
  checkpoint_mismatch: 'checkpoint does not match the chain',
  wrong_key: 'sealed with another key',
} as const;

export type FindingKind = keyof typeof FINDINGS;

/** The first thing wrong: where (null when it is not one position, e.g. the key) and what. */
export type Finding = { readonly kind: FindingKind; readonly position: Position | null; readonly detail: string };

/** What a removal record says it erased, for checking erased events against it. */
export type RemovalLookup = (removalSeq: bigint) => Promise<{ readonly eventIds: ReadonlySet<string> } | null>;

/**
 * One event of the log as verify checks it: where it is, what its seal must cover as the log holds
 * it now (the header and data hashes, computed by the reader: `sealParts` or the same bytes in
 * SQL; the metadata as JSON text, canonicalised and hashed by the walk, so that this work overlaps
 * the read of the next page instead of delaying its request) and whether its content was removed
 * (see SealInput.erasure).
 */
export type ChainEvent = {
  readonly id: string;
  readonly position: Position;
  readonly header: Buffer;
  readonly metadata: string;
  readonly data: Buffer;
  readonly erasure: { readonly by: bigint | null } | null;
};

export type ChainReader = {
  /** The log's events after `after`, in global order, fewer than `limit` only when cut by bytes or at the end. */
  readonly events: (after: Position, limit: number) => Promise<ChainEvent[]>;
  /** An event's type and stream, for what a finding says (the walk reads no more than the hashes). */
  readonly about: (event: ChainEvent) => Promise<{ readonly type: string; readonly stream: string } | null>;
  /** Seals in global order, without their part hashes (`sealOfEvent` gives them on a mismatch). */
  readonly seals: (after: Position, limit: number) => Promise<SealHead[]>;
  readonly sealOfEvent: (eventId: string) => Promise<SealRecord | null>;
  /** Where the log holds an event now, or null. */
  readonly positionOfEvent: (eventId: string) => Promise<Position | null>;
  /** Oldest first. */
  readonly checkpoints: () => Promise<Checkpoint[]>;
  readonly removal: RemovalLookup;
};

export type VerifyReport = {
  readonly finding: Finding | null;
  /** Events read from the log (up to the finding). */
  readonly events: number;
  readonly sealed: number;
  /** Newest events not sealed yet (the sealer trails the append by a few seconds). */
  readonly unsealed: number;
  readonly head: { readonly position: Position; readonly ordinal: bigint; readonly seal: Buffer } | null;
  /** Erased events that verified, by the removal record (its global position) that erased them. */
  readonly erased: ReadonlyMap<bigint, number>;
};

const at = (p: Position) => positionToString(p);

/**
 * Walks the whole log and its seals in global order and recomputes the chain, stopping at the
 * first thing wrong. Every event below the newest seal must be sealed, by that event, in that
 * place; every seal must still have its event; every checkpoint must lie on the chain; an erased
 * event must name a removal record that lists it.
 */
export const verifyChain = async (
  reader: ChainReader,
  key: AuditKey,
  onProgress: (events: number) => void = () => {},
): Promise<VerifyReport> => {
  const log = pageCursor(reader.events);
  const seals = pageCursor(reader.seals);
  try {
    return await walk(reader, key, onProgress, log, seals);
  } finally {
    await Promise.all([log.close(), seals.close()]);
  }
};

type Cursor<T extends { position: Position }> = ReturnType<typeof pageCursor<T>>;

const walk = async (
  reader: ChainReader,
  key: AuditKey,
  onProgress: (events: number) => void,
  log: Cursor<ChainEvent>,
  seals: Cursor<SealHead>,
): Promise<VerifyReport> => {
  const checkpoints = await reader.checkpoints();
  const newest = checkpoints.at(-1);
  let events = 0;
  let sealed = 0;
  let unsealed = 0;
  let previous = GENESIS_SEAL;
  let head: VerifyReport['head'] = null;
  const erased = new Map<bigint, number>();
  const report = (finding: Finding | null): VerifyReport => ({ finding, events, sealed, unsealed, head, erased });
  if (newest !== undefined && newest.keyId !== key.id) {
    return report({
      kind: 'wrong_key',
      position: null,
      detail: `the chain is sealed with key ${newest.keyId}; the key given is ${key.id} (SERVICE_AUDIT_KEY or SERVICE_SECRET as the server had it)`,
    });
  }
  let nextCheckpoint = 0;
  const nextSeal = sealHasher(key.key);

  const elsewhere = async (e: ChainEvent, p: Position): Promise<Finding | null> => {
    const sealedAt = await reader.sealOfEvent(e.id);
    return sealedAt !== null && comparePosition(sealedAt.position, p) !== 0
      ? { kind: 'events_reordered', position: p, detail: `event ${e.id} was sealed at ${at(sealedAt.position)} and is now at ${at(p)}` }
      : null;
  };

  /** "SampleNoted 0f3a… in sample-1": what a finding names (read only then). */
  const named = async (e: ChainEvent) => {
    const about = await reader.about(e);
    return about === null ? `event ${e.id}` : `${about.type} ${e.id} in ${about.stream}`;
  };

  for (;;) {
    const e = log.inHand() ?? (await log.peek());
    const s = seals.inHand() ?? (await seals.peek());
    if (e === undefined && s === undefined) break;
    const order = e === undefined ? 1 : s === undefined ? -1 : comparePosition(e.position, s.position);

    if (order < 0) {
      // An event without a seal: fine past the newest seal (not sealed yet), wrong before it.
      const event = e!;
      if (s !== undefined) {
        return report(
          (await elsewhere(event, event.position)) ?? {
            kind: 'event_inserted',
            position: event.position,
            detail: `${await named(event)} is not sealed, yet later events are`,
          },
        );
      }
      unsealed++;
      events++;
      log.take();
    } else if (order > 0) {
      const seal = s!;
      if (e === undefined) {
        let gone = 0;
        while ((await seals.peek()) !== undefined) {
          gone++;
          seals.take();
        }
        return report({
          kind: 'tail_truncated',
          position: seal.position,
          detail: `the log ends before ${at(seal.position)}: ${gone} sealed event(s) from there on are gone`,
        });
      }
      const now = await reader.positionOfEvent(seal.eventId);
      return report(
        now === null
          ? { kind: 'event_missing', position: seal.position, detail: `event ${seal.eventId}, sealed at ${at(seal.position)}, is gone` }
          : {
              kind: 'events_reordered',
              position: seal.position,
              detail: `event ${seal.eventId} was sealed at ${at(seal.position)} and is now at ${at(now)}`,
            },
      );
    } else {
      const event = e!;
      const seal = s!;
      const expected: bigint = head === null ? 1n : head.ordinal + 1n;
      if (seal.ordinal !== expected) {
        return report({
          kind: 'event_missing',
          position: seal.position,
          detail: `${seal.ordinal - expected} sealed event(s) before ${at(seal.position)} are gone, with their seals`,
        });
      }
      const parts: SealParts = { header: event.header, metadata: metadataHash(canonicalMetadata(event.metadata)), data: event.data };
      const computed = nextSeal(previous, event.position, parts);
      if (!computed.equals(seal.seal)) {
        if (event.id !== seal.eventId) {
          return report(
            (await elsewhere(event, event.position)) ?? {
              kind: 'event_replaced',
              position: event.position,
              detail: `${at(event.position)} holds event ${event.id}; event ${seal.eventId} was sealed there`,
            },
          );
        }
        // What the seal covered says what changed (read only now: the walk reads seals without it).
        const covered = await reader.sealOfEvent(seal.eventId);
        const what: FindingKind =
          covered === null
            ? 'seal_altered'
            : !parts.data.equals(covered.data)
              ? 'data_changed'
              : !parts.metadata.equals(covered.metadata)
                ? 'metadata_changed'
                : !parts.header.equals(covered.header)
                  ? 'header_changed'
                  : 'seal_altered';
        return report({ kind: what, position: event.position, detail: await named(event) });
      }
      if (event.erasure !== null) {
        const by = event.erasure.by;
        const removal = by === null ? null : await reader.removal(by);
        if (by === null || removal === null || !removal.eventIds.has(event.id)) {
          const name = await named(event);
          return report({
            kind: 'removed_without_record',
            position: event.position,
            detail:
              by === null
                ? `the content of ${name} was replaced and no removal record is named`
                : removal === null
                  ? `${name} is marked erased by ${by}, which is not a removal record`
                  : `${name} is marked erased by the removal record at ${by}, which does not list it`,
          });
        }
        erased.set(by, (erased.get(by) ?? 0) + 1);
      }
      const checkpoint = checkpoints[nextCheckpoint];
      if (checkpoint !== undefined && checkpoint.ordinal === seal.ordinal) {
        if (comparePosition(checkpoint.position, seal.position) !== 0 || !checkpoint.seal.equals(computed)) {
          return report({
            kind: 'checkpoint_mismatch',
            position: seal.position,
            detail: `the checkpoint of ${checkpoint.recordedAt} records event ${seal.ordinal} at ${at(checkpoint.position)} with another seal: the chain was re-sealed`,
          });
        }
        nextCheckpoint++;
      }
      previous = computed;
      head = { position: seal.position, ordinal: seal.ordinal, seal: computed };
      events++;
      sealed++;
      log.take();
      seals.take();
    }
    if (events % 10_000 === 0) onProgress(events);
  }
  onProgress(events);
  if (newest !== undefined && (head === null || head.ordinal < newest.ordinal)) {
    return report({
      kind: 'tail_truncated',
      position: newest.position,
      detail: `the checkpoint of ${newest.recordedAt} records ${newest.ordinal} sealed events up to ${at(newest.position)}; the chain now ends ${head === null ? 'before its first event' : `at event ${head.ordinal} (${at(head.position)})`}`,
    });
  }
  return report(null);
};

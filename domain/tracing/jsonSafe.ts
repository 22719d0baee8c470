import type { Attributes, AttributeValue } from './attributes.ts';
import type { SpanBatch, SpanEventRecord, SpanRecord } from './spanRecord.ts';

/**
 * Postgres' jsonb cannot hold U+0000 nor an unpaired UTF-16 surrogate (OTLP/JSON can carry both as
 * escapes), and one such string would make the whole append fail and the exporter retry forever.
 * They become U+FFFD, as an invalid UTF-8 byte already does in protobuf. Nothing is copied unless
 * something needed fixing: this runs on every export request.
 */
const UNSAFE = /[\u0000\ud800-\udfff]/;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const text = (s: string): string => (UNSAFE.test(s) ? s.replaceAll('\u0000', '\ufffd').replace(LONE_SURROGATE, '\ufffd') : s);

const value = (v: AttributeValue): AttributeValue => {
  if (v === null) return v;
  if ('str' in v) return UNSAFE.test(v.str) ? { str: text(v.str) } : v;
  if ('array' in v) {
    const items = v.array.map(value);
    return items.some((x, i) => x !== v.array[i]) ? { array: items } : v;
  }
  if ('kvlist' in v) {
    const kv = attributes(v.kvlist);
    return kv === v.kvlist ? v : { kvlist: kv };
  }
  return v;
};

const attributes = (a: Attributes): Attributes => {
  let changed = false;
  const entries: (readonly [string, AttributeValue])[] = [];
  for (const [k, v] of Object.entries(a)) {
    const kk = text(k);
    const vv = value(v);
    if (kk !== k || vv !== v) changed = true;
    entries.push([kk, vv]);
  }
  if (!changed) return a;
  const out: Record<string, AttributeValue> = {};
  // defineProperty: a key "__proto__" must stay a key (see attributesFrom).
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
};

const event = (e: SpanEventRecord): SpanEventRecord => {
  const name = text(e.name);
  const attrs = attributes(e.attributes);
  return name === e.name && attrs === e.attributes ? e : { ...e, name, attributes: attrs };
};

const span = (s: SpanRecord): SpanRecord => {
  const name = text(s.name);
  const message = text(s.status.message);
  const attrs = attributes(s.attributes);
  const events = s.events.map(event);
  const sessionId = s.sessionId === null ? null : text(s.sessionId);
  if (name === s.name && message === s.status.message && attrs === s.attributes && sessionId === s.sessionId && events.every((e, i) => e === s.events[i])) {
    return s;
  }
  return { ...s, name, status: { ...s.status, message }, attributes: attrs, events, sessionId };
};

/** The batch with every string storable in jsonb; the same object when nothing needed fixing. */
export const jsonSafeBatch = (batch: SpanBatch): SpanBatch => {
  const spans = batch.spans.map(span);
  const resources = batch.resources.map(attributes);
  const projectName = text(batch.projectName);
  if (projectName === batch.projectName && spans.every((s, i) => s === batch.spans[i]) && resources.every((r, i) => r === batch.resources[i])) {
    return batch;
  }
  return { projectName, resources, spans };
};

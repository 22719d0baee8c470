#!/usr/bin/env node
// The auditor's offline check of a `loupe audit export` file: plain Node, no database, no
// dependencies, so it can be read in one sitting and run anywhere.
//
//   node bin/loupe-audit-check.mjs EXPORT.jsonl [--secret-file FILE | --unkeyed]
//
// The secret is the server's SERVICE_AUDIT_KEY (or SERVICE_SECRET when that is unset): from
// --secret-file, else the first line of stdin (so it never appears in a process list or a shell
// history). --unkeyed checks a chain sealed without either.
// Exit 0: every seal recomputes and the file is complete. Exit 1: the first thing wrong is named.
// Exit 2: bad arguments.
//
// It recomputes what the server computes (domain/audit/sealChain.ts, auditKey.ts, auditExport.ts):
// written a second time on purpose, so the auditor does not have to trust the server's code; the
// test test/ops/auditExport.test.ts checks that both agree.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const FORMAT = 'loupe-audit-export/1';

const usage = 'usage: node bin/loupe-audit-check.mjs EXPORT.jsonl [--secret-file FILE | --unkeyed] (secret on stdin otherwise)';
let parsed;
try {
  parsed = parseArgs({ options: { 'secret-file': { type: 'string' }, unkeyed: { type: 'boolean' } }, allowPositionals: true });
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (parsed.positionals.length !== 1) {
  console.error(usage);
  process.exit(2);
}

const readSecret = async () => {
  if (parsed.values.unkeyed) return null;
  if (parsed.values['secret-file']) return readFileSync(parsed.values['secret-file'], 'utf8').split('\n')[0].trim();
  for await (const line of createInterface({ input: process.stdin })) return line.trim();
  return '';
};

const secret = await readSecret();
const key = secret === null ? Buffer.alloc(0) : createHmac('sha256', secret).update('loupe audit seal key v1').digest();
const keyId = secret === null ? 'none' : `a-${createHash('sha256').update(`loupe audit key id\0${secret}`).digest('hex').slice(0, 12)}`;

const u64 = (n) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const u32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const field = (text) => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([u32(bytes.length), bytes]);
};
const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const same = (a, b) => a.length === b.length && timingSafeEqual(a, b);

let lineNo = 0;
const fail = (what) => {
  console.log(`TAMPERED: ${lineNo > 0 ? `line ${lineNo}: ` : ''}${what}`);
  process.exit(1);
};

let header = null;
let previous = Buffer.alloc(32);
let expectedOrdinal = 1n;
let lastPosition = null;
let sawUnsealed = false;
let lines = 0;
let headSeal = '';
let headPosition = null;
let ended = false;
const checkpoints = new Map();
const preamble = createHash('sha256'); // the header and checkpoint lines, as written: the end MAC covers them
const erasedBy = new Map();
const erasures = []; // [event id, removal record seq, position]: checked against the records at the end
const removalRecords = new Map(); // seq → ids the record lists

const position = (text) => {
  const m = /^(\d+):(\d+)$/.exec(text ?? '');
  if (!m) fail(`bad position ${JSON.stringify(text)}`);
  return [BigInt(m[1]), BigInt(m[2])];
};

for await (const text of createInterface({ input: createReadStream(parsed.positionals[0]), crlfDelay: Infinity })) {
  lineNo++;
  if (ended) fail('lines after the end line');
  let line;
  try {
    line = JSON.parse(text);
  } catch {
    fail('not JSON');
  }
  if (header === null) {
    if (line.kind !== 'header' || line.format !== FORMAT) fail(`not a ${FORMAT} file`);
    if (line.keyId !== keyId) fail(`the chain is sealed with key ${line.keyId}; the secret given is key ${keyId}`);
    header = line;
    preamble.update(`${text}\n`);
    continue;
  }
  if (line.kind === 'checkpoint') {
    if (lines > 0) fail('a checkpoint line among the events');
    checkpoints.set(line.ordinal, line);
    preamble.update(`${text}\n`);
    continue;
  }
  if (line.kind === 'missing') fail(`the event sealed at ${line.position} (${line.id}) is missing from the log`);
  if (line.kind === 'end') {
    if (String(line.lines) !== String(lines))
      fail(`the end line counts ${line.lines} events, the file holds ${lines}: lines were removed or added`);
    if (line.headSeal !== headSeal) fail('the end line names another head seal: the file was cut or extended');
    const mac = createHmac('sha256', key)
      .update(`loupe audit export end\0${line.lines}\0${line.headSeal}\0${preamble.digest('hex')}`)
      .digest();
    if (!same(mac, Buffer.from(String(line.mac), 'hex'))) fail('the end line, the header or a checkpoint line was altered');
    ended = true;
    continue;
  }
  if (line.kind !== 'event') fail(`unknown line kind ${JSON.stringify(line.kind)}`);
  lines++;
  const [tx, seq] = position(line.position);
  if (lastPosition !== null && (tx < lastPosition[0] || (tx === lastPosition[0] && seq <= lastPosition[1]))) {
    fail(`position ${line.position} is not after ${lastPosition.join(':')}: events reordered`);
  }
  lastPosition = [tx, seq];
  if (line.seal === null) {
    sawUnsealed = true; // the newest events, not sealed yet when the export was taken
    continue;
  }
  if (sawUnsealed) fail(`an unsealed event before ${line.position}: event inserted`);
  if (line.ordinal !== expectedOrdinal.toString()) fail(`seal ordinal ${line.ordinal} where ${expectedOrdinal} was due: events missing`);
  const headerHash = sha256(field(line.id), field(line.stream), u32(line.revision), field(line.type));
  const metadataHash = sha256(Buffer.from(JSON.stringify(line.metadata), 'utf8'));
  const erased = 'originalDataSha256' in line;
  const dataHash = erased ? Buffer.from(line.originalDataSha256, 'hex') : sha256(Buffer.from(line.data, 'utf8'));
  const seal = createHmac('sha256', key)
    .update(previous)
    .update(u64(tx))
    .update(u64(seq))
    .update(headerHash)
    .update(metadataHash)
    .update(dataHash)
    .digest();
  if (!same(seal, Buffer.from(line.seal, 'hex')))
    fail(`the event at ${line.position} (${line.type} ${line.id}) does not match its seal: it was changed`);
  const checkpoint = checkpoints.get(line.ordinal);
  if (checkpoint && (checkpoint.position !== line.position || checkpoint.seal !== line.seal)) {
    fail(`the checkpoint of ${checkpoint.recordedAt} records another seal for event ${line.ordinal}: the chain was re-sealed`);
  }
  checkpoints.delete(line.ordinal);
  if (erased) {
    if (line.erasedBy === null) fail(`the content of the event at ${line.position} was removed and no removal record is named`);
    erasures.push([line.id, line.erasedBy, line.position]);
  }
  if (line.stream === 'removals' && line.type === 'ContentRemoved') {
    let listed = [];
    try {
      listed = JSON.parse(line.data).erased ?? [];
    } catch {}
    removalRecords.set(seq.toString(), new Set(listed.map((e) => e.id)));
  }
  previous = seal;
  headSeal = line.seal;
  headPosition = line.position;
  expectedOrdinal++;
}
if (header === null) fail('empty file');
if (!ended) fail('the file ends without its end line: it was cut short');
for (const checkpoint of checkpoints.values()) {
  if (BigInt(checkpoint.ordinal) >= expectedOrdinal) {
    fail(
      `the checkpoint of ${checkpoint.recordedAt} records ${checkpoint.ordinal} sealed events; the file holds ${expectedOrdinal - 1n}: tail truncated`,
    );
  }
}
for (const [id, by, at] of erasures) {
  if (!removalRecords.get(by)?.has(id)) {
    lineNo = 0;
    fail(
      `the event at ${at} is marked erased by ${by}, which is not a removal record listing it: content removed without a removal record`,
    );
  }
  erasedBy.set(by, (erasedBy.get(by) ?? 0) + 1);
}
console.log(`intact: ${expectedOrdinal - 1n} sealed events (head ${headPosition ?? 'none'} seal ${headSeal || 'none'}, key ${keyId})`);
for (const [record, count] of erasedBy) console.log(`${count} event(s) erased by the removal record at position ${record}`);

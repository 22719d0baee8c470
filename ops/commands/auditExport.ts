import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { checkpointLine, endLine, eventLine, headerLine, missingLine } from '../../domain/audit/auditExport.ts';
import { deriveAuditKey } from '../../domain/audit/auditKey.ts';
import { pageCursor } from '../../domain/audit/pageCursor.ts';
import { comparePosition, type Position } from '../../domain/eventstore/types.ts';
import { parseArgs } from 'node:util';
import { createSealer } from '../../projections/audit/createSealer.ts';
import { readCheckpoints, readSeals } from '../../projections/audit/sealStore.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

const write = async (out: Writable, text: string) => {
  if (!out.write(text)) await once(out, 'drain');
};

/**
 * `loupe audit export [--out FILE]`: seals what is not sealed yet, then writes every event with
 * its seal, the checkpoints and a closing MAC as JSON lines (domain/audit/auditExport.ts), for
 * bin/loupe-audit-check.mjs to check offline with the key. The file holds the log's content as
 * stored: keep it as you keep a backup.
 */
export const run: CommandRun = async (config, args) => {
  const { values } = parseArgs({ args, options: { out: { type: 'string' } } });
  const key = deriveAuditKey(config.audit.secret);
  const log = await openEventLog(config);
  const out = values.out ? createWriteStream(values.out) : process.stdout;
  try {
    const pool = log.database.pool;
    await createSealer({ pool, key, source: log.sealInputs }).catchUp();
    const source = log.sealInputs(pool);
    const events = pageCursor((after, limit) => source.readWithData(after, Math.min(limit, 1_000), 16 * 1024 * 1024));
    const seals = pageCursor((after, limit) => readSeals(pool, after, limit));
    // Checkpoints first: the offline verifier then knows which seals to hold them against as it reads.
    const preamble = createHash('sha256');
    for (const text of [headerLine(key, new Date()), ...(await readCheckpoints(pool)).map(checkpointLine)]) {
      preamble.update(text);
      await write(out, text);
    }
    let lines = 0;
    let head: { position: Position; seal: Buffer } | null = null;
    let e = await events.peek();
    for (let s = await seals.peek(); e !== undefined || s !== undefined; e = await events.peek(), s = await seals.peek()) {
      const order = e === undefined ? 1 : s === undefined ? -1 : comparePosition(e.position, s.position);
      if (order > 0) {
        await write(out, missingLine(s!));
        seals.take();
      } else {
        const seal = order === 0 ? s! : null;
        await write(out, eventLine(e!, seal));
        if (seal !== null) head = { position: seal.position, seal: seal.seal };
        events.take();
        if (seal !== null) seals.take();
      }
      lines++;
    }
    await write(out, endLine(key, lines, head, preamble.digest('hex')));
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    process.stderr.write(`${lines} events exported${head ? `, sealed head ${head.seal.toString('hex')}` : ''}\n`);
    return 0;
  } finally {
    await log.close();
  }
};

import { parseArgs } from 'node:util';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { START } from '../../domain/eventstore/types.ts';
import { openEventLog } from '../openEventLog.ts';
import type { CommandRun } from './command.ts';

const write = (line: string) =>
  new Promise<void>((resolve) => (process.stdout.write(line) ? resolve() : process.stdout.once('drain', resolve)));

export const exportLine = (e: StoredEvent): string =>
  `${JSON.stringify({
    id: e.id,
    stream: e.stream,
    revision: e.revision,
    position: `${e.position.tx}:${e.position.seq}`,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    // A removal rewrote its data: which record did (its position), and the hash of what it held.
    ...(e.erased ? { erased: { by: `${e.erased.by.tx}:${e.erased.by.seq}`, dataSha256: e.erased.dataSha256 } } : {}),
  })}\n`;

/**
 * `loupe events export`: the raw log as JSON lines in global order, for auditors. Filters by
 * stream, type and the event's recorded time (metadata.time); from is inclusive, to exclusive.
 */
export const run: CommandRun = async (config, args) => {
  const { values } = parseArgs({
    args,
    options: { stream: { type: 'string' }, type: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
  });
  const from = values.from ? Date.parse(values.from) : -Infinity;
  const to = values.to ? Date.parse(values.to) : Infinity;
  const log = await openEventLog(config);
  try {
    let after = START;
    for (;;) {
      const page = await log.store.readAll(after, 500);
      if (page.length === 0) break;
      after = page[page.length - 1]!.position;
      for (const e of page) {
        if (values.stream && e.stream !== values.stream) continue;
        if (values.type && e.type !== values.type) continue;
        const time = Date.parse(e.metadata.time);
        if (time < from || time >= to) continue;
        await write(exportLine(e));
      }
    }
    return 0;
  } finally {
    await log.close();
  }
};

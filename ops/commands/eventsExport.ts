import { parseArgs } from 'node:util';
import type { StoredEvent } from '../../domain/eventstore/types.ts';
import { START } from '../../domain/eventstore/types.ts';
import { AUDITED_TYPES } from '../../domain/audit/describeEvent.ts';
import { openEventLog } from '../openEventLog.ts';
import { pipedOutput } from '../pipedOutput.ts';
import type { CommandRun } from './command.ts';

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
  const output = pipedOutput(process.stdout);
  let written = 0;
  try {
    let after = START;
    // Until the log's end, or until the reader stops reading (`| head`): then stop reading the log too.
    for (let reading = true; reading; ) {
      // Bounded by bytes too: 500 events of 2,000 spans each would be a gigabyte in memory.
      const page = await log.store.readAll(after, 500, { maxBytes: 16 * 1024 * 1024 });
      if (page.length === 0) break;
      after = page[page.length - 1]!.position;
      for (const e of page) {
        if (values.stream && e.stream !== values.stream) continue;
        if (values.type && e.type !== values.type) continue;
        const time = Date.parse(e.metadata.time);
        if (time < from || time >= to) continue;
        written++;
        reading = await output.write(exportLine(e));
        if (!reading) break;
      }
    }
    if (output.failure) {
      console.error(`loupe: events export: could not write the output: ${output.failure.message}`);
      return 1;
    }
    // A typo in --type would otherwise print nothing and exit 0, like an empty log. A type this
    // version does not write may still be in the log (an older one's): only when none matched.
    if (written === 0 && values.type !== undefined && !AUDITED_TYPES.includes(values.type)) {
      const near = AUDITED_TYPES.filter((t) => t.toLowerCase().startsWith(values.type!.toLowerCase().slice(0, 4))).slice(0, 5);
      console.error(
        `loupe: events export: no event of type ${JSON.stringify(values.type)}, and it is not a type Loupe writes${near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : ''}`,
      );
      return 2;
    }
    return 0;
  } finally {
    await log.close();
  }
};

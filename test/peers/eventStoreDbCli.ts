import { parseArgs } from 'node:util';
import { startEventStoreDb } from './eventStoreDb.ts';

/**
 * `npm run esdb:standin -- [--port 2113] [--host 127.0.0.1] [--file events.jsonl] [--max-append-size BYTES]`:
 * the EventStoreDB stand-in on its own, to try `SERVICE_EVENTSTORE_URL` without a server. It is a
 * test peer, not a database: see test/peers/eventStoreDb.ts for what it does not do.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '2113' },
    host: { type: 'string', default: '127.0.0.1' },
    file: { type: 'string' },
    'max-append-size': { type: 'string', default: String(16 * 1024 * 1024) },
    trace: { type: 'boolean', default: false },
  },
});
const server = await startEventStoreDb({
  port: Number(values.port),
  host: values.host,
  file: values.file,
  maxAppendSize: Number(values['max-append-size']),
  trace: values.trace ? (line) => process.stdout.write(`${line}\n`) : undefined,
});
process.stdout.write(
  `EventStoreDB stand-in listening on ${values.host}:${server.port} (${values.file ? `log in ${values.file}` : 'log in memory only'})\n` +
    `  SERVICE_EVENTSTORE_URL=${server.url.replace(/^esdb:/, 'kurrentdb:')}\n`,
);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

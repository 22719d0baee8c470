import { PGlite } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';
import { serializeError, type PgliteWorkerReply, type PgliteWorkerRequest, type PgliteWorkerStart } from './pgliteWorkerProtocol.ts';

/**
 * The worker thread that owns embedded PGlite (pgliteInWorker.ts): every statement runs here, so
 * however long one takes (a 50,000-span append, a filter over every span) the server's own thread
 * stays free for /healthz and other requests.
 */
const port = parentPort!;
const reply = (message: PgliteWorkerReply) => port.postMessage(message);
const identity = (text: string) => text;

const start = workerData as PgliteWorkerStart;
let db: PGlite;
try {
  db = await PGlite.create(start.dataDir, { startParams: [...start.startParams] });
  reply({ kind: 'ready' });
} catch (error) {
  reply({ kind: 'failedToStart', error: serializeError(error) });
  throw error;
}

port.on('message', async (request: PgliteWorkerRequest) => {
  if (request.kind === 'close') {
    await db.close().catch(() => undefined);
    reply({ kind: 'closed', id: request.id });
    return;
  }
  try {
    const parsers = Object.fromEntries(request.rawTypes.map((oid) => [oid, identity]));
    const result = await db.query<Record<string, unknown>>(request.sql, request.params as unknown[], {
      parsers,
      rowMode: 'object',
      ...(request.blob === undefined ? {} : { blob: request.blob }),
    });
    reply({
      kind: 'result',
      id: request.id,
      result: {
        rows: result.rows,
        fields: (result.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
        ...(result.affectedRows === undefined ? {} : { affectedRows: result.affectedRows }),
      },
    });
  } catch (error) {
    reply({ kind: 'error', id: request.id, error: serializeError(error) });
  }
});

import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const PROTOCOLS = '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1';
const { OperationsClient } = require(`${PROTOCOLS}/operations_grpc_pb.js`);
const operationsPb: typeof import('@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/operations_pb.js') = require(
  `${PROTOCOLS}/operations_pb.js`,
);

type Call = (
  request: unknown,
  metadata: unknown,
  options: unknown,
  callback: (error: Error | null, response?: { getScavengeId(): string }) => void,
) => void;
/** The methods every command of the client runs through (TypeScript marks them protected; they are plain methods). */
type Internals = {
  execute<T>(client: unknown, debugName: string, action: (grpc: { startScavenge: Call }) => Promise<T>): Promise<T>;
  callArguments(options: object): [unknown, unknown];
};

/**
 * Starts a scavenge (`Operations.StartScavenge`), which removes from the server's log what stream
 * metadata (`$tb`, `$maxAge`, `$maxCount`) and deletions hide. The client ships the service but
 * no method for it, so this calls it on the client's own channel (its TLS, credentials and node
 * selection), the way the client's commands do. Returns the scavenge id.
 */
export const startScavenge = (client: KurrentDBClient): Promise<string> => {
  const internals = client as unknown as Internals;
  return internals.execute(OperationsClient, 'startScavenge', (grpc) => {
    const request = new operationsPb.StartScavengeReq().setOptions(
      new operationsPb.StartScavengeReq.Options().setThreadCount(1).setStartFromChunk(0),
    );
    const [metadata, options] = internals.callArguments({ requiresLeader: true });
    return new Promise<string>((resolve, reject) =>
      grpc.startScavenge(request, metadata, options, (error, response) => (error ? reject(error) : resolve(response!.getScavengeId()))),
    );
  });
};

// The decode worker's entry point (see exportDecoder.ts). A worker thread does not get the
// TypeScript loader that `--import tsx` installed on the main thread (Node's own type stripping
// would take over and refuse parts of our syntax), so this plain JavaScript file registers tsx in
// the worker before loading the TypeScript worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./decodeWorker.ts');

import { readFileSync } from 'node:fs';

/**
 * V8 heap flags every launcher gives the server process (bin/loupe.js, `npm start`, the
 * benchmarks), kept in serverNodeFlags.json so the plain-JS launcher reads the same list.
 *
 * - `--max-semi-space-size=8`: Node 24 sizes the young generation from the machine's memory
 *   (up to 64 MB semi-spaces on a large box); the idle server then holds a ~190 MB JS heap for
 *   ~60 MB of live objects. 8 MB semi-spaces cut idle RSS by ~80–200 MB.
 * - `--heap-growing-percent=100`: after a full GC V8 lets the old generation grow up to 4× the
 *   live heap before the next one, so a sustained stream of short-lived objects (a 100 MB upload,
 *   ingest) raised RSS by ~250 MB over a ~60 MB live heap. 2× keeps that growth near 100 MB.
 * - `--expose-gc`: openDatabase collects the ~300 MB an embedded first start's initdb leaves
 *   behind as soon as PGlite is up, instead of whenever V8 next runs a full GC.
 *
 * All measured in BENCHMARKS.md §5 "Memory" and §8. The first cannot be set at run time (the young generation
 * is sized when the isolate starts), hence flags.
 */
export const SERVER_NODE_FLAGS: readonly string[] = JSON.parse(
  readFileSync(new URL('./serverNodeFlags.json', import.meta.url), 'utf8'),
) as string[];

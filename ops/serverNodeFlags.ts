import { readFileSync } from 'node:fs';

/**
 * V8 flags every launcher gives the server process (bin/loupe.js, `npm start`, the
 * benchmarks), kept in serverNodeFlags.json so the plain-JS launcher reads the same list.
 *
 * - `--max-semi-space-size=16`: Node 24 sizes the young generation from the machine's memory
 *   (up to 64 MB semi-spaces on a large box); the idle server then holds a ~190 MB JS heap for
 *   ~60 MB of live objects. 8 MB semi-spaces cut idle RSS by ~80–200 MB; 16 MB costs 10–20 MB of
 *   that back (idle 225–231 → 240–244 MB) and promotes less of what ingest and the projector
 *   hold across a database round trip, which every full GC then marks again: the 100k-span
 *   Postgres run went from ~2,750 to ~3,300 visible spans/s with ~15 % less server CPU, peak
 *   352–372 → 358–396 MB (32 MB: ~3,400 spans/s but a 411 MB peak; BENCHMARKS.md §12).
 * - `--heap-growing-percent=50`: after a full GC V8 lets the old generation grow up to 4× the
 *   live heap before the next one, so a sustained stream of short-lived objects (a 100 MB upload,
 *   ingest) raised RSS by ~250 MB over a ~60 MB live heap. 2× (100) kept that growth near 100 MB;
 *   1.5× (50) took the 100k-span Postgres ingest run's peak from 418–466 MB to 358–396 MB, for
 *   ~8 % fewer spans/s and ~20 % more server CPU (more full GCs; BENCHMARKS.md §11).
 * - `--liftoff-only`: WebAssembly (only embedded PGlite runs any) stays on V8's baseline
 *   compiler. TurboFan compiling one hot Postgres function (104 KB of WebAssembly)
 *   takes ~600 MB of compiler memory for 0.7 s: the embedded server peaked at 1.27 GB while
 *   starting and 640–710 MB in a 30k-span ingest run, and kept ~100 MB more idle. Without
 *   TurboFan: 713–728 MB / 486–548 MB peaks, 220 MB idle, for ~20 % fewer spans/s on PGlite
 *   (BENCHMARKS.md §11). No effect with SERVICE_SQL_DATABASE_URL (no WebAssembly runs).
 *
 * All measured in BENCHMARKS.md §5 "Memory" and §8. The first cannot be set at run time (the young generation
 * is sized when the isolate starts), hence flags.
 */
export const SERVER_NODE_FLAGS: readonly string[] = JSON.parse(
  readFileSync(new URL('./serverNodeFlags.json', import.meta.url), 'utf8'),
) as string[];

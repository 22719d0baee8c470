/**
 * Default for the bytes of event data (JSON text as stored) in one projection batch. A
 * SpansIngested event of 2,000 LLM spans is ~10 MB of JSON, and in memory it costs several times
 * that (the text, the parsed objects, the rows built from them): 20 such events were over 1 GB.
 * Measured with 2.5 MB events (512 spans) on Postgres, 100k spans (BENCHMARKS.md §10): 32 MB
 * gave a peak server RSS of 592 MB, 8 MB 443 MB at the same visible rate, 4 MB 394 MB but 21 %
 * fewer spans/s (one or two events per transaction: its fixed costs dominate). Batches of small
 * events (users, projects, annotations) are still bounded by the event count. The store applies
 * it (`EventStore.readAll`'s `maxBytes`).
 */
export const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

import type { IncomingMessage } from 'node:http';
import { serverBusy } from './busy.ts';
import type { ContentEncoding } from './decompress.ts';
import type { IngestBudget } from './ingestBudget.ts';
import { readBody, type BodyPace } from './readBody.ts';

export type AdmissionOptions = {
  readonly budget: IngestBudget;
  /** Limit for the body as sent and again once decompressed (413 past it). */
  readonly maxBytes: number;
  readonly encoding: ContentEncoding;
  readonly pace: BodyPace;
};

/**
 * Every request that brings spans (OTLP/HTTP, `POST /v1/projects/{id}/spans`) is admitted here:
 * held before a byte of the body is read while the read models catch up (lagGate.ts), so the
 * sender waits instead of sending its body twice; its bytes reserved in the shared in-flight
 * budget as they arrive (inflated ones for a compressed body), never up front on the word of
 * Content-Length; a request slot claimed only once the whole body is here. Past the budget or the
 * lag bound it is refused with 503 + Retry-After. `use` runs with the body while the reservation
 * is held, and everything is given back when it settles.
 */
export const withAdmittedBody = async <T>(
  req: IncomingMessage,
  options: AdmissionOptions,
  use: (body: Buffer) => Promise<T>,
): Promise<T> => {
  const { budget } = options;
  const busy = () => serverBusy(budget);
  await budget.whenOpen?.();
  const lease = budget.open();
  try {
    const body = await readBody(req, { maxBytes: options.maxBytes, encoding: options.encoding, lease, busy, pace: options.pace });
    if (!lease.claimSlot()) throw busy();
    return await use(body);
  } finally {
    lease.release();
  }
};

import type { IngestBudget } from './ingestBudget.ts';
import { IngestError } from './ingestError.ts';

export const serverBusy = (budget: IngestBudget): IngestError =>
  new IngestError('server_busy', 'the server is at capacity for span ingest; retry later', {
    'Retry-After': String(budget.retryAfterSeconds),
  });

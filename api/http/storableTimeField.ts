import { z } from 'zod';
import { checkStorableTime } from '../../domain/base/storableTime.ts';
import { ruledString } from './fieldRule.ts';

/**
 * A body or query time a command stores: ISO 8601 with a zone, within the one storable range
 * (domain/base/storableTime.ts), as UTC text; otherwise a 422 naming the field
 * (`body.effective_from: must be an ISO 8601 time from 0001-01-01 to 9999-12-31 (UTC)…`).
 */
export const storableTimeField = z.iso.datetime({ offset: true }).pipe(ruledString((raw) => checkStorableTime(null, raw)));

import { restPermission } from '../../../domain/access/restPermission.ts';
import type { HttpMethod, RouteDef } from '../../http/route.ts';
import { rejectNulChars } from '../../http/rejectNulChars.ts';

/** A tracing REST route: its permission from the one REST table, NUL-free parameters checked first. */
export const tracingRoute = (method: HttpMethod, path: string, handler: RouteDef['handler']): RouteDef => ({
  method,
  path,
  permission: restPermission(method, path),
  handler: (ctx) => {
    rejectNulChars(ctx);
    return handler(ctx);
  },
});

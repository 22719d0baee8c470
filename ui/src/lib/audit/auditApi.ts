import { http } from '../api/http.ts';

/** One audit entry as `GET /v1/audit/events` answers it. */
export type AuditEntry = {
  readonly id: string;
  readonly kind: 'event' | 'ingestion';
  readonly position: string;
  readonly event_id: string | null;
  readonly time: string;
  readonly type: string;
  readonly actor: {
    readonly actor: string;
    readonly kind: 'user' | 'api_key' | 'system' | 'policy' | 'operator' | 'anonymous';
    readonly name: string | null;
    readonly user_id: string | null;
  };
  readonly request_id: string | null;
  readonly resource: {
    readonly type: string | null;
    readonly id: string | null;
    readonly name: string | null;
    readonly stream: string | null;
    readonly link: string | null;
  } | null;
  readonly summary: string;
  readonly changes: readonly { readonly field: string; readonly before: string | null; readonly after: string | null }[];
  readonly erased: { readonly by: string } | null;
  readonly ingestion: {
    readonly hour_start: string;
    readonly hour_end: string;
    readonly exports: number;
    readonly spans: number;
    readonly first_position: string;
    readonly last_position: string;
    readonly last_time: string;
  } | null;
};

export type AuditFilters = {
  readonly actor: string;
  readonly type: string;
  readonly resource: string;
  /** ISO times or ''. */
  readonly from: string;
  readonly to: string;
};

export type AuditPage = { readonly entries: readonly AuditEntry[]; readonly nextCursor: string | null };

export const fetchAuditEvents = async (
  filters: AuditFilters,
  cursor: string | null,
  limit: number,
  signal?: AbortSignal,
): Promise<AuditPage> => {
  const reply = await http<{ data: AuditEntry[]; next_cursor: string | null }>('/v1/audit/events', {
    query: {
      limit,
      cursor,
      actor: filters.actor.trim(),
      type: filters.type.trim(),
      resource: filters.resource.trim(),
      from: filters.from,
      to: filters.to,
    },
    signal,
  });
  return { entries: reply.data, nextCursor: reply.next_cursor };
};

/** The event types people filter by most, offered in the type filter (any other can be typed). */
export const COMMON_TYPES = [
  'UserCreated',
  'RoleChanged',
  'UserDeleted',
  'PasswordChanged',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'SecretsReplaced',
  'ProjectCreated',
  'ProjectUpdated',
  'ProjectDeleted',
  'ProjectRestrictionSet',
  'ProjectGrantSet',
  'ProjectGrantRevoked',
  'PromptTagSet',
  'SpansIngested',
  'ContentRemoved',
  'LoginFailed',
] as const;

import { formatDateTime } from '../format.ts';

/**
 * The time ranges the pages filter on: a preset relative to now, or a custom start/end. Kept in
 * the URL (`?range=7d`, `?range=custom&start=…&end=…`) so a filtered page can be linked and reloaded.
 */
export const PRESETS = [
  { id: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 24 * 3600_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 24 * 3600_000 },
  { id: 'all', label: 'All time', ms: null },
] as const;

export type PresetId = (typeof PRESETS)[number]['id'];

export type TimeRangeChoice =
  | { readonly kind: 'preset'; readonly preset: PresetId }
  | { readonly kind: 'custom'; readonly start: string | null; readonly end: string | null };

/** What the API takes: ISO instants, either side open. */
export type TimeRange = { readonly start: string | null; readonly end: string | null };

export const DEFAULT_CHOICE: TimeRangeChoice = { kind: 'preset', preset: '7d' };

export const resolveTimeRange = (choice: TimeRangeChoice, now = Date.now()): TimeRange => {
  if (choice.kind === 'custom') return { start: choice.start, end: choice.end };
  const preset = PRESETS.find((p) => p.id === choice.preset);
  return { start: preset?.ms ? new Date(now - preset.ms).toISOString() : null, end: null };
};

const isoOrNull = (value: unknown): string | null => {
  if (typeof value !== 'string' || value === '') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

export const choiceFromSearch = (search: Record<string, string | number | boolean>): TimeRangeChoice => {
  const range = String(search.range ?? '');
  if (range === 'custom') return { kind: 'custom', start: isoOrNull(search.start), end: isoOrNull(search.end) };
  const preset = PRESETS.find((p) => p.id === range);
  return preset ? { kind: 'preset', preset: preset.id } : DEFAULT_CHOICE;
};

export const choiceToSearch = (choice: TimeRangeChoice): Record<string, string> =>
  choice.kind === 'preset'
    ? { range: choice.preset }
    : { range: 'custom', ...(choice.start ? { start: choice.start } : {}), ...(choice.end ? { end: choice.end } : {}) };

export const describeChoice = (choice: TimeRangeChoice): string => {
  if (choice.kind === 'preset') return PRESETS.find((p) => p.id === choice.preset)?.label ?? '';
  const fmt = (iso: string | null) => (iso ? formatDateTime(iso) : '…');
  return `${fmt(choice.start)} – ${fmt(choice.end)}`;
};

/** `<input type="datetime-local">` speaks local time without a zone. */
export const toLocalInput = (iso: string | null): string => {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

export const fromLocalInput = (value: string): string | null => (value ? new Date(value).toISOString() : null);

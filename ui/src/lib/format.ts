/** Display formats shared by every page: the same number looks the same everywhere. */

const integer = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const formatCount = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : integer.format(n));

/** 1234567 → 1.2M; small numbers stay exact. */
/** USD: two decimals from a cent up, three significant digits below; '–' for none (nothing priced). */
export const formatUsd = (n: number | null | undefined): string =>
  n === null || n === undefined ? '–' : n === 0 ? '$0' : Math.abs(n) < 0.01 ? `$${Number(n.toPrecision(3))}` : `$${n.toFixed(2)}`;

/** USD in a narrow column: below a cent in cents (`0.0071¢`), else as formatUsd. */
export const formatUsdShort = (n: number | null | undefined): string =>
  n !== null && n !== undefined && n !== 0 && Math.abs(n) < 0.01 ? `${Number((n * 100).toPrecision(2))}¢` : formatUsd(n);

export const formatCompact = (n: number | null | undefined): string =>
  n === null || n === undefined ? '–' : Math.abs(n) < 10_000 ? integer.format(Math.round(n)) : compact.format(n);

/** Milliseconds as a person reads a latency: 850ms, 1.24s, 2m 05s. */
export const formatLatency = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '–';
  if (ms < 1) return `${ms.toFixed(2)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
};

export const formatPercent = (ratio: number | null | undefined): string => {
  if (ratio === null || ratio === undefined) return '–';
  const percent = ratio * 100;
  return `${percent === 0 || percent >= 10 ? percent.toFixed(0) : percent.toFixed(1)}%`;
};

// One clock on every page: 24-hour ("Nov 27, 2026, 13:05"), never "1:05 PM" here and "13:05" there.
const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' });
const dateOnly = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });

export const formatDateTime = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : '–');
export const formatDate = (iso: string | null | undefined): string => (iso ? dateOnly.format(new Date(iso)) : '–');

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "3 minutes ago", "yesterday"; "just now" under a minute. */
export const formatRelative = (iso: string | null | undefined, now = Date.now()): string => {
  if (!iso) return 'never';
  const delta = new Date(iso).getTime() - now;
  for (const [unit, ms] of UNITS) {
    if (Math.abs(delta) >= ms) return relative.format(Math.round(delta / ms), unit);
  }
  return 'just now';
};

/** Display formats shared by every page: the same number looks the same everywhere. */

const integer = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const formatCount = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : integer.format(n));

/**
 * USD, the one money format of every page: dollars, three significant digits below a dollar
 * ($0.0145, $0.0160, $0.370), cents from a dollar up ($1.23, $1,234.57); '–' for none (nothing
 * priced). Put formatUsdExact in the title beside it: the hover shows the whole value.
 */
const usdSmall = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumSignificantDigits: 3,
  maximumSignificantDigits: 3,
});
const usdLarge = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usdExact = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 12,
});
export const formatUsd = (n: number | null | undefined): string =>
  n === null || n === undefined ? '–' : n === 0 ? '$0' : Math.abs(n) < 1 ? usdSmall.format(n) : usdLarge.format(n);

/** The exact USD value (to a trillionth of a dollar), for a title: "$0.014519". */
export const formatUsdExact = (n: number | null | undefined): string => (n === null || n === undefined ? 'No price' : usdExact.format(n));

/** Fraction digits that tell ticks `step` apart: 0.005 → 3, 0.5 → 1, 20 → 0. */
export const stepDecimals = (step: number): number => (step > 0 && step < 1 ? Math.min(12, Math.ceil(-Math.log10(step) - 1e-9)) : 0);

/** A USD axis tick: as many decimals as the step needs (at least cents), so no two ticks read alike. */
export const formatUsdTick = (v: number, step: number): string =>
  v === 0
    ? '$0'
    : `$${v.toLocaleString('en-US', { minimumFractionDigits: Math.max(2, stepDecimals(step)), maximumFractionDigits: Math.max(2, stepDecimals(step)) })}`;

/** 1234567 → 1.2M; small numbers stay exact. */
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
const clockOnly = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** The time of day alone on the same 24-hour clock: "15:00". */
export const formatClock = (iso: string | null | undefined): string => (iso ? clockOnly.format(new Date(iso)) : '–');
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

/** A span's start as a table shows it: short date, time to the second ("Nov 23, 09:06:12"). */
const short = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  // h23, not hour12: false, which en-US turns into "24:05" just after midnight.
  hourCycle: 'h23',
});

export const formatTimestamp = (iso: string | null | undefined): string => (iso ? short.format(new Date(iso)) : '–');

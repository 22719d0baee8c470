/**
 * Time-axis labels on the one 24-hour clock of every page ("21:10", never "9pm"): the hour and
 * minute for ticks under a day apart (seconds too under a minute), the date on the first tick and
 * wherever the day changes; the date alone for ticks a day or more apart. Ticks are Unix seconds.
 */
const day = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric' });
const hourMinute = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const hourMinuteSecond = new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

export const timeTickLabels = (ticks: readonly number[], stepSeconds: number): string[] => {
  let lastDay = '';
  return ticks.map((t) => {
    const date = new Date(t * 1000);
    const dayText = day.format(date);
    if (stepSeconds >= 86_400) return dayText;
    const clock = (stepSeconds < 60 ? hourMinuteSecond : hourMinute).format(date);
    const newDay = dayText !== lastDay;
    lastDay = dayText;
    return newDay ? `${clock}\n${dayText}` : clock;
  });
};

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { logGateChanges } from '../../ingest/lagGateLog.ts';

const test = suite('the lag gate logs a close at most once a minute');

const recordingLogger = () => {
  const lines: { level: 'warn' | 'info'; fields: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    warn: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'warn', fields, message }),
    info: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'info', fields, message }),
  };
};

test('given a gate flipping every second, one close line and its reopening a minute; the next says how often it closed meanwhile', () => {
  const logger = recordingLogger();
  let clock = 0;
  const onChange = logGateChanges(logger as never, { quietMs: 60_000, now: () => clock });

  // When the gate closes and opens 30 times, a second apart
  for (let i = 0; i < 30; i++) {
    onChange(true, 3.4);
    clock += 500;
    onChange(false, 1.2);
    clock += 500;
  }
  // Then only the first close and its reopening were logged
  assert.equal(
    logger.lines.map((l) => l.level),
    ['warn', 'info'],
  );
  assert.match(logger.lines[0]!.message, /trail ingest by 3\.4 s/);

  // And a minute after the first line, the next close is logged with the count of those not logged
  clock = 60_000;
  onChange(true, 3.9);
  assert.is(logger.lines.length, 3);
  assert.is(logger.lines[2]!.fields.closedUnloggedTimes, 29);
  assert.match(logger.lines[2]!.message, /closed 29 more times/);
  onChange(false, 0.5);
  assert.is(logger.lines.at(-1)!.level, 'info');
});

test.run();

import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

/** JSON lines on stdout (or the given stream, which tests capture to scan for secrets). */
export const createLogger = (level: LogLevel, destination?: DestinationStream): Logger =>
  pino({ level, base: { service: 'loupe' }, timestamp: pino.stdTimeFunctions.isoTime }, destination);

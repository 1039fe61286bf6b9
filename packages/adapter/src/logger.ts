import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** The default logger: JSON lines on stderr at `LOG_LEVEL` (default `info`). */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? 'info', ...options }, pino.destination(2));
}

/** A logger that writes nothing, for tests and embedding. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

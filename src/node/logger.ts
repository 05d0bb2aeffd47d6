/** The node's log: one line per event on stderr, honouring NODE_LOGGING and NODE_LOG_LEVEL. */
import { InputError, printable } from '../shared/errors.ts';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

const order: readonly LogLevel[] = ['error', 'warn', 'info', 'debug', 'trace'];

export interface Logger {
  /** State changes an operator waits for (setup completed): shown at every level while logging is on. */
  announce(message: string): void;
  error(message: string): void;
  warn(message: string): void;
  info(message: string): void;
  debug(message: string): void;
}

export interface LoggerOptions {
  /** @default true */
  readonly enabled?: boolean;
  /** @default "info" */
  readonly level?: LogLevel;
  readonly write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const enabled = options.enabled ?? true;
  const threshold = order.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const at = (level: LogLevel) => (message: string) => {
    if (enabled && order.indexOf(level) <= threshold)
      write(`${new Date().toISOString()} ${level.toUpperCase()} ${message}\n`);
  };
  const announce = (message: string) => {
    if (enabled) write(`${new Date().toISOString()} INFO ${message}\n`);
  };
  return { announce, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

export interface LogSettings {
  readonly enabled: boolean;
  readonly level: LogLevel;
}

export type LogSettingsReading =
  | { readonly ok: true; readonly settings: LogSettings }
  | { readonly ok: false; readonly variable: string; readonly value: string; readonly accepted: readonly string[] };

const switches: readonly string[] = ['true', 'false'];

/**
 * NODE_LOGGING (true or false, default true) and NODE_LOG_LEVEL (default info) from an environment, in
 * any case; empty is the default. Anything else is refused rather than read as the default, so that a
 * misspelt level does not silently hide the lines an operator asked for.
 */
export function readLogSettings(environment: NodeJS.ProcessEnv): LogSettingsReading {
  const logging = (environment.NODE_LOGGING ?? '').toLowerCase();
  if (logging !== '' && !switches.includes(logging))
    return { ok: false, variable: 'NODE_LOGGING', value: environment.NODE_LOGGING ?? '', accepted: switches };
  const level = (environment.NODE_LOG_LEVEL ?? '').toLowerCase() || 'info';
  if (!(order as readonly string[]).includes(level))
    return { ok: false, variable: 'NODE_LOG_LEVEL', value: environment.NODE_LOG_LEVEL ?? '', accepted: order };
  return { ok: true, settings: { enabled: logging !== 'false', level: level as LogLevel } };
}

/** The log NODE_LOGGING and NODE_LOG_LEVEL ask for; an InputError naming the accepted values if they are wrong. */
export function loggerFromEnvironment(environment: NodeJS.ProcessEnv): Logger {
  const reading = readLogSettings(environment);
  if (reading.ok) return createLogger(reading.settings);
  throw new InputError(
    'BAD_ENVIRONMENT',
    printable(`${reading.variable}=${reading.value} is not one of ${reading.accepted.join(', ')}`),
    {
      hint:
        `set ${reading.variable} to one of them, ` +
        `or leave it empty for ${reading.variable === 'NODE_LOGGING' ? 'true' : 'info'}`,
    },
  );
}

/**
 * The same log for code that only logs in passing (an administrator command moving a key file): the
 * processes that own these variables (node, relay) refuse a wrong value at start; here it means the
 * default, rather than failing after the work is done.
 */
export function loggerFromEnvironmentOrDefault(environment: NodeJS.ProcessEnv): Logger {
  const reading = readLogSettings(environment);
  return createLogger(reading.ok ? reading.settings : {});
}

/** The node's log: one line per event on stderr, honouring NODE_LOGGING and NODE_LOG_LEVEL. */
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
    if (enabled && order.indexOf(level) <= threshold) write(`${new Date().toISOString()} ${level.toUpperCase()} ${message}\n`);
  };
  const announce = (message: string) => {
    if (enabled) write(`${new Date().toISOString()} INFO ${message}\n`);
  };
  return { announce, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/** NODE_LOGGING (default true) and NODE_LOG_LEVEL (default info) from an environment. */
export function loggerFromEnvironment(environment: NodeJS.ProcessEnv): Logger {
  const level = (environment.NODE_LOG_LEVEL ?? 'info').toLowerCase();
  return createLogger({
    enabled: environment.NODE_LOGGING !== 'false',
    level: (order as readonly string[]).includes(level) ? (level as LogLevel) : 'info',
  });
}

/**
 * The log as one portal's parts write it. Their lines begin "outlet: " or "inlet: "; a portal given by
 * name says which: "outlet postgres: ". A node of the single forms logs as it always did.
 */
import type { Logger } from './logger.ts';

export function portalLogger(logger: Logger, label: string): Logger {
  if (label === 'outlet' || label === 'inlet') return logger;
  const named = (message: string) => `${label}: ${message.replace(/^(outlet|inlet): /, '')}`;
  return {
    announce: (message) => logger.announce(named(message)),
    error: (message) => logger.error(named(message)),
    warn: (message) => logger.warn(named(message)),
    info: (message) => logger.info(named(message)),
    debug: (message) => logger.debug(named(message)),
  };
}

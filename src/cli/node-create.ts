/**
 * `portal node create --foreground`: enroll (once, with a ticket) and run a node; SIGHUP reloads its
 * configuration file.
 */
import { parseHostPort } from '../shared/address.ts';
import { durationRanges } from '../shared/duration.ts';
import { InputError } from '../shared/errors.ts';
import { tuneGarbageCollectionForThroughput } from '../shared/gc-tuning.ts';
import { drainFromEnvironment, stopOnSignal } from '../shared/graceful-stop.ts';
import { reduceMemoryAfterBursts } from '../shared/memory-reducer.ts';
import { sweepDeadReadBuffers } from '../shared/read-buffer-sweep.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { parseNodeConfig, readConfigurationArgument } from '../node/config.ts';
import { loggerFromEnvironment, type Logger } from '../node/logger.ts';
import type { ConfigurationSource } from '../node/node-options.ts';
import { defaultConnectionBounds, type ConnectionBounds } from '../node/connection-bounds.ts';
import { keepsConfiguration } from '../node/kept-configuration.ts';
import { defaultWarmStreams, maxWarmStreams } from '../node/limits.ts';
import { startNode } from '../node/node.ts';
import { durationVariable } from './duration-flag.ts';
import { portalHome } from './home.ts';
import { ticketFromFlags } from './ticket-input.ts';

export interface NodeCreateOptions {
  readonly foreground?: boolean;
  readonly configuration?: string;
  readonly nodeConfig?: string;
  readonly enrollmentTicket?: string;
  readonly enrollmentTicketFile?: string;
}

interface LoadedConfiguration {
  readonly config: NodeConfig;
  readonly ticket?: string;
  readonly source: ConfigurationSource;
}

async function loadConfiguration(options: NodeCreateOptions): Promise<LoadedConfiguration> {
  if (options.configuration && options.nodeConfig) {
    throw new InputError('BAD_FLAG', '--configuration and --node-config are two ways to say the same thing', {
      hint: 'give one of them',
    });
  }
  const value = options.configuration ?? options.nodeConfig;
  const flag = options.configuration ? '--configuration' : '--node-config';
  if (!value)
    throw new InputError('BAD_FLAG', 'no node configuration was given', {
      hint: 'give --configuration (JSON or YAML, inline or a file) or --node-config',
    });
  const { name, text, file } = await readConfigurationArgument(value, flag);
  const config = parseNodeConfig(name, text, { environment: process.env });
  const ticket = await ticketFromFlags(options, config.ticket);
  const { ticket: documentTicket, ...rest } = config;
  // A document that cannot be read again (inline, or a systemd credential) is kept in the home for reloads.
  const source: ConfigurationSource = keepsConfiguration(file, process.env)
    ? { file: undefined, flag, ticket: documentTicket, keep: text }
    : { file, flag, ticket: documentTicket };
  return ticket ? { config: rest, ticket, source } : { config: rest, source };
}

export async function runNode(options: NodeCreateOptions): Promise<void> {
  // First: a wrong NODE_LOG_LEVEL or NODE_LOGGING is refused before anything is read, written or logged.
  const logger = loggerFromEnvironment(process.env);
  if (!options.foreground) {
    throw new InputError('BAD_FLAG', 'portal node create runs in the foreground only', {
      hint: 'add --foreground, and use a service manager or a container to keep it running',
    });
  }
  tuneGarbageCollectionForThroughput();
  reduceMemoryAfterBursts();
  sweepDeadReadBuffers();
  // Until the node runs, a SIGHUP (a reload) waits for it rather than ending the process.
  let reload: () => void = () => undefined;
  const onHangUp = () => reload();
  process.on('SIGHUP', onHangUp);
  try {
    await startAndRun(options, logger, (ask) => (reload = ask));
  } finally {
    process.off('SIGHUP', onHangUp);
  }
}

async function startAndRun(
  options: NodeCreateOptions,
  logger: Logger,
  onReload: (reload: () => void) => void,
): Promise<void> {
  const { config, ticket, source } = await loadConfiguration(options);
  const heartbeat = heartbeatFromEnvironment(process.env);
  const warmStreams = warmStreamsFromEnvironment(process.env);
  const directAdvertise = directAdvertiseFromEnvironment(process.env);
  const connectionBounds = connectionBoundsFromEnvironment(process.env);
  const drainMs = drainFromEnvironment(process.env);
  const starting = startNode({
    home: portalHome(),
    config,
    source,
    environment: process.env,
    drainMs,
    logger,
    ...(ticket ? { ticket } : {}),
    ...(heartbeat ? { heartbeat } : {}),
    ...(warmStreams === undefined ? {} : { warmStreams }),
    ...(directAdvertise ? { directAdvertise } : {}),
    connectionBounds,
  });
  onReload(() => void starting.then((node) => node.reload()).catch(() => undefined));
  // Listening from the start: a signal while the node enrolls or binds stops it once it has started.
  await stopOnSignal(
    starting.then((node) => ({
      stopAccepting: () => node.stopAccepting(),
      openConnections: () => node.openConnections(),
      whenIdle: () => node.whenIdle(),
      close: () => node.stop(),
    })),
    {
      drainMs,
      log: (line) => logger.announce(line),
      name: 'the node',
      finished: starting.then((node) => node.finished),
    },
  );
}

/**
 * PORTAL_HEARTBEAT (a duration from 500ms to 5m, default 5s): how often peers are pinged; silence for twice
 * that ends a session.
 */
function heartbeatFromEnvironment(
  environment: NodeJS.ProcessEnv,
): { intervalMs: number; timeoutMs: number } | undefined {
  if (!environment.PORTAL_HEARTBEAT) return undefined;
  const intervalMs = durationVariable('PORTAL_HEARTBEAT', environment.PORTAL_HEARTBEAT, durationRanges.heartbeat);
  return { intervalMs, timeoutMs: 2 * intervalMs };
}

/** PORTAL_WARM_STREAMS (default 2): end-to-end streams an inlet keeps ready; 0 carries every client on the session. */
function warmStreamsFromEnvironment(environment: NodeJS.ProcessEnv): number | undefined {
  const value = environment.PORTAL_WARM_STREAMS;
  if (value === undefined || value === '') return undefined;
  // An outlet keeps at most outletLimits.unopenedPerMember streams of one inlet waiting (twice this bound).
  if (!/^[0-9]{1,2}$/.test(value) || Number(value) > maxWarmStreams)
    throw new InputError(
      'BAD_ENVIRONMENT',
      `PORTAL_WARM_STREAMS=${value} is not a number from 0 to ${maxWarmStreams}`,
      { hint: `give ${defaultWarmStreams}, or 0 to carry every client on the session` },
    );
  return Number(value);
}

/**
 * PORTAL_OUTLET_CONNECTIONS (default 4096) and PORTAL_OUTLET_CONNECTIONS_PER_INLET (default 512): the
 * target connections an outlet holds at once, in all and for one inlet node.
 */
function connectionBoundsFromEnvironment(environment: NodeJS.ProcessEnv): ConnectionBounds {
  const read = (name: string, fallback: number): number => {
    const value = environment[name];
    if (value === undefined || value === '') return fallback;
    if (!/^[0-9]{1,7}$/.test(value) || Number(value) < 1)
      throw new InputError('BAD_ENVIRONMENT', `${name}=${value} is not a whole number of connections from 1`, {
        hint: `give a number such as ${fallback}`,
      });
    return Number(value);
  };
  const total = read('PORTAL_OUTLET_CONNECTIONS', defaultConnectionBounds.total);
  return {
    total,
    perInlet: Math.min(total, read('PORTAL_OUTLET_CONNECTIONS_PER_INLET', defaultConnectionBounds.perInlet)),
  };
}

/**
 * PORTAL_DIRECT_ADVERTISE: host:port addresses (comma-separated) where outlets reach the inlet's direct path,
 * behind NAT or in a container.
 */
function directAdvertiseFromEnvironment(environment: NodeJS.ProcessEnv): string[] | undefined {
  const value = environment.PORTAL_DIRECT_ADVERTISE;
  if (value === undefined || value.trim() === '') return undefined;
  const addresses = value.split(',').map((address) => address.trim());
  const bad = addresses.find((address) => !parseHostPort(address).ok || address.length > 300);
  if (bad !== undefined || addresses.length > 16) {
    throw new InputError(
      'BAD_ENVIRONMENT',
      `PORTAL_DIRECT_ADVERTISE=${value} is not a list of host:port addresses` +
        `${bad === undefined ? ' of at most 16' : ` (${JSON.stringify(bad)})`}`,
      {
        hint: 'give the addresses outlets dial, such as 203.0.113.7:4200',
      },
    );
  }
  return addresses;
}

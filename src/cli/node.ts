/**
 * `portal node create --foreground` runs a node (SIGHUP reloads its configuration file); `portal node
 * show` reports whether it is UP; `portal node reload` is in node-reload.ts.
 */
import type { Command } from 'commander';
import { parseHostPort } from '../shared/address.ts';
import { durationRanges } from '../shared/duration.ts';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { tuneGarbageCollectionForThroughput } from '../shared/gc-tuning.ts';
import { drainFromEnvironment, stopOnSignal } from '../shared/graceful-stop.ts';
import { reduceMemoryAfterBursts } from '../shared/memory-reducer.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { parseNodeConfig, readConfigurationArgument } from '../node/config.ts';
import { loggerFromEnvironment, type Logger } from '../node/logger.ts';
import type { ConfigurationSource } from '../node/node-options.ts';
import { defaultConnectionBounds, type ConnectionBounds } from '../node/connection-bounds.ts';
import { runningHolder } from '../node/home-claim.ts';
import { keepsConfiguration } from '../node/kept-configuration.ts';
import { defaultWarmStreams, maxWarmStreams } from '../node/limits.ts';
import { runtimeFile, startNode } from '../node/node.ts';
import { portalLabel } from '../node/portals.ts';
import { isReady, servingCount, type PortalHealth } from '../node/portal-health.ts';
import type { NodeShow, NodeShowRunning } from '../node/show.ts';
import { plural } from '../shared/plural.ts';
import { product } from '../shared/product.ts';
import { durationVariable } from './duration-flag.ts';
import { statusAnswerMs } from './limits.ts';
import { portalHome } from './home.ts';
import { registerNodeReload } from './node-reload.ts';
import { readNodeShow } from './status-request.ts';
import { ticketFromFlags } from './ticket-input.ts';

export interface NodeCreateOptions {
  readonly foreground?: boolean;
  readonly configuration?: string;
  readonly nodeConfig?: string;
  readonly enrollmentTicket?: string;
  readonly enrollmentTicketFile?: string;
}

export function registerNode(program: Command): void {
  const node = program.command('node').description('run this machine as an inlet or outlet node');
  node
    .command('create')
    .description('enroll (once, with a ticket) and run a node with the given configuration')
    .option(
      '--foreground',
      'run in the foreground (required: use a service manager or container to run it in the background)',
    )
    .option(
      '--configuration <json-or-yaml>',
      'node configuration: a JSON document (read strictly: no trailing comma) or a YAML one, or a file holding one',
    )
    .option('--node-config <yaml>', 'node configuration that may carry the ticket under a ticket key')
    .option(
      '--enrollment-ticket <ticket>',
      'enrollment ticket (also ENROLLMENT_TICKET); needed only the first time, and visible to other users in ps: ' +
        'prefer --enrollment-ticket-file',
    )
    .option('--enrollment-ticket-file <path>', 'read the enrollment ticket from this file (- for standard input)')
    .action(async (options: NodeCreateOptions) => runNode(options));
  node
    .command('show')
    .description(
      'print "The node is UP" and its details when every portal of the local node carries traffic; ' +
        'exit 1 when one does not (DEGRADED), none does (DOWN), or the node was revoked (REVOKED)',
    )
    .option('--ready', 'exit 0 while the node serves at least one of its portals (UP or DEGRADED): a health check')
    .option('--json', "print the node's status as JSON (GET /show), whatever it is")
    .action(async (options: NodeShowOptions) => showNode(options));
  registerNodeReload(node);
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

async function runNode(options: NodeCreateOptions): Promise<void> {
  // First: a wrong NODE_LOG_LEVEL or NODE_LOGGING is refused before anything is read, written or logged.
  const logger = loggerFromEnvironment(process.env);
  if (!options.foreground) {
    throw new InputError('BAD_FLAG', 'portal node create runs in the foreground only', {
      hint: 'add --foreground, and use a service manager or a container to keep it running',
    });
  }
  tuneGarbageCollectionForThroughput();
  reduceMemoryAfterBursts();
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

export interface NodeShowOptions {
  readonly ready?: boolean;
  readonly json?: boolean;
}

async function showNode(options: NodeShowOptions): Promise<void> {
  const home = portalHome();
  // A runtime file left by a process that is gone (a crash, a kill -9) says nothing runs.
  const runtime = await runningHolder(runtimeFile(home));
  if (!runtime) throw notRunningFailure(home);
  if (runtime.statusPort === undefined)
    throw down(
      `it is starting (pid ${runtime.pid}) and its status server does not listen yet`,
      'run portal node show again in a moment, or check its log',
    );
  let shown: NodeShow;
  try {
    shown = await readNodeShow(runtime.statusPort, statusAnswerMs);
  } catch (error) {
    throw down(
      `its status server on 127.0.0.1:${runtime.statusPort} did not answer ` +
        `(${(error as Error).message}; pid ${runtime.pid})`,
      'check its log; a node that hangs can be stopped with kill',
    );
  }
  if (options.json) console.log(JSON.stringify(shown, null, 2));
  else if ('name' in shown && (shown.status === 'up' || shown.status === 'degraded'))
    console.log(describeNode(shown).join('\n'));
  const failure = verdict(shown, runtime.pid, options.ready === true);
  if (failure) throw failure;
}

/**
 * Why `node show` exits 1, or nothing when it exits 0: UP, or DEGRADED with --ready (the node serves
 * some of its portals). The node runs: what it says is the reason, and its log has the details.
 */
export function verdict(shown: NodeShow, pid: number, ready: boolean): RuntimeFailure | undefined {
  if (shown.status === 'up' || (ready && isReady(shown.status))) return undefined;
  const running = `the node runs (pid ${pid}); its log says more about each problem`;
  const problems = shown.problems.join('; ');
  if (!('name' in shown))
    return down(problems ? `${problems} (it is ${shown.status})` : `it is ${shown.status}`, running);
  switch (shown.status) {
    case 'degraded': {
      const serving = shown.portals.filter((portal) => portal.state !== 'down').map(portalName);
      return new RuntimeFailure('NODE_DEGRADED', `The node is DEGRADED: ${problems}`, {
        hint: `${serving.join(', ')} ${serving.length === 1 ? 'carries' : 'carry'} traffic; ${running}`,
      });
    }
    case 'revoked':
      return new RuntimeFailure('NODE_REVOKED', `The node is REVOKED: ${problems}`, {
        hint: `it runs (pid ${pid}) and tries nothing more; portal reset --yes stops it and removes its identity`,
      });
    case 'down':
      return down(problems, running);
    default:
      // Never up since it started: say so beside why, not instead of it.
      return down(`${problems} (not up yet, ${shown.uptime_seconds} s after its start)`, running);
  }
}

const portalName = (portal: PortalHealth) =>
  portalLabel(portal.kind, { name: portal.name, pointer: portal.configured_at });

/**
 * The lines of `node show` for a node that is up or degraded: which figures are totals since its start,
 * which are open now, and what stops the portals that are down. A portal given by name is printed with
 * it ("outlet postgres:"); those of the single forms as they always were ("outlet:").
 */
export function describeNode(shown: NodeShowRunning): string[] {
  const label = (kind: 'outlet' | 'inlet', part: { name: string; configured_at: string }) =>
    portalLabel(kind, { name: part.name, pointer: part.configured_at });
  const { serving, total } = servingCount(shown.portals ?? []);
  const downPortals = (shown.portals ?? []).filter((portal) => portal.state === 'down').map(portalName);
  return [
    shown.status === 'up'
      ? product.nodeUpLine
      : `The node is ${shown.status.toUpperCase()}: ${total - serving} of ${plural(total, 'portal')} ` +
        `cannot carry traffic (${downPortals.join(', ')})`,
    `  node ${shown.name} in project ${shown.project.id}, controller ${shown.project.controller} (${shown.controller})`,
    `  certificate valid until ${shown.identity.valid_until}`,
    ...shown.outlets.map(
      (o) =>
        `  ${label('outlet', o)}: relay ${o.relay} -> ${o.to}, ${o.status}, ` +
        `registered on ${plural(o.registered_on.length, 'relay')}, ` +
        `${plural(o.sessions, 'session')} open (${o.sessions_direct} direct), ` +
        `${plural(o.connections_total, 'connection')} so far, ${o.connections_active} open now`,
    ),
    ...shown.relays.map((r) => `  relay ${r.id} at ${r.address}: ${r.status}`),
    ...shown.inlets.map(
      (i) =>
        `  ${label('inlet', i)}: ${i.listening ?? i.from} via ${i.via}, session ${i.session}` +
        `${i.path ? ` (${i.path})` : ''}, ` +
        `${plural(i.connections_total, 'connection')} so far (${i.connections_direct} direct, ` +
        `${i.connections_relayed} relayed), ${i.connections_active} open now, ${i.connections_refused} refused`,
    ),
    ...(shown.status === 'up' ? [] : shown.problems.map((problem) => `  problem: ${problem}`)),
    ...(shown.warnings ?? []).map((warning) => `  warning: ${warning}`),
  ];
}

const notRunning = 'start it with portal node create --foreground, or check its log';

/** What `node show` says when no node runs with `home`. */
export const notRunningFailure = (home: string) => down(`no node runs with PORTAL_HOME=${home}`, notRunning);

function down(reason: string, hint: string): RuntimeFailure {
  return new RuntimeFailure('NODE_DOWN', `The node is DOWN: ${reason}`, { hint });
}

/** `portal relay start`: a relay of one project as its own process, apart from the controller. */
import { networkInterfaces } from 'node:os';
import type { Command } from 'commander';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { InputError } from '../shared/errors.ts';
import { drainFromEnvironment, stopOnSignal } from '../shared/graceful-stop.ts';
import { tuneGarbageCollectionForThroughput } from '../shared/gc-tuning.ts';
import { reduceMemoryAfterBursts } from '../shared/memory-reducer.ts';
import { sweepDeadReadBuffers } from '../shared/read-buffer-sweep.ts';
import { loggerFromEnvironment } from '../node/logger.ts';
import { revocationMaxAgeMs } from '../node/revocation-list.ts';
import { startRelayNode } from '../relay/relay-node.ts';
import { portalHome } from './home.ts';
import { parseStatusListen, statusListenDefault, statusListenHelp } from './status-listen.ts';
import { ticketFromFlags } from './ticket-input.ts';

export interface RelayStartOptions {
  readonly controller?: string;
  readonly enrollmentTicket?: string;
  readonly enrollmentTicketFile?: string;
  /** @default "0.0.0.0:4100" */
  readonly listen: string;
  readonly publicAddress?: string;
  readonly revocationMaxAge?: string;
  /** Where GET /metrics and GET /healthz are served: HOST:PORT, PORT, 0 or off. @default "127.0.0.1:0" */
  readonly statusListen: string;
}

export function registerRelay(program: Command): void {
  const relay = program
    .command('relay')
    .description('run a relay: the process that carries portals between nodes that cannot reach each other');
  relay
    .command('start')
    .description('enroll (once, with a --relay-node ticket) and run a relay of the project in the foreground')
    .option(
      '--controller <host:port>',
      "the controller's address, when this machine reaches it by another than the ticket's",
    )
    .option(
      '--enrollment-ticket <ticket>',
      'enrollment ticket from portal project ticket --relay-node (also ENROLLMENT_TICKET); needed only the first time',
    )
    .option('--enrollment-ticket-file <path>', 'read the enrollment ticket from this file (- for standard input)')
    .option('--listen <host:port>', 'address to listen on for nodes (port 0 picks a free one)', '0.0.0.0:4100')
    .option(
      '--public-address <host:port>',
      'address nodes dial, announced to the controller (default: the listening address; on 0.0.0.0, ' +
        "this machine's first network address)",
    )
    .option(
      '--revocation-max-age <duration>',
      'splice no new session while the list of revoked members is older than this (the controller away), ' +
        'such as 5m (default: no bound)',
    )
    .option('--status-listen <address>', statusListenHelp, statusListenDefault)
    .action(async (options: RelayStartOptions) => runRelay(options));
}

async function runRelay(options: RelayStartOptions): Promise<void> {
  // First: a wrong NODE_LOG_LEVEL or NODE_LOGGING is refused before anything is read, written or logged.
  const logger = loggerFromEnvironment(process.env);
  tuneGarbageCollectionForThroughput();
  reduceMemoryAfterBursts();
  sweepDeadReadBuffers();
  const listen = parseHostPort(options.listen, true);
  if (!listen.ok)
    throw new InputError('BAD_FLAG', `--listen ${options.listen}: expected host:port, but ${listen.reason}`, {
      hint: 'give --listen 0.0.0.0:4100, for example',
    });
  for (const [flag, value] of [
    ['--public-address', options.publicAddress],
    ['--controller', options.controller],
  ] as const) {
    if (value !== undefined && !parseHostPort(value).ok)
      throw new InputError('BAD_FLAG', `${flag} ${value} is not host:port`, { hint: `give ${flag} HOST:PORT` });
  }
  const revocationMaxAge =
    options.revocationMaxAge === undefined
      ? undefined
      : revocationMaxAgeMs(options.revocationMaxAge, '--revocation-max-age');
  const status = parseStatusListen(options.statusListen);
  const ticket = await ticketFromFlags(options);
  const host = socketHost(listen.address.host);
  const drainMs = drainFromEnvironment(process.env);
  const wildcard = host === '0.0.0.0' || host === '::';
  const publicAddress =
    options.publicAddress ?? (wildcard ? `${firstNetworkAddress()}:${listen.address.port}` : undefined);
  const starting = startRelayNode({
    home: portalHome(),
    listen: { host, port: listen.address.port },
    logger,
    ...(ticket ? { ticket } : {}),
    // Port 0 is known only once listening: the default public address then follows it.
    ...(publicAddress && listen.address.port !== 0 ? { publicAddress } : {}),
    ...(options.controller ? { controller: options.controller } : {}),
    ...(revocationMaxAge !== undefined ? { revocationMaxAgeMs: revocationMaxAge } : {}),
    ...(status ? { status: { ...status, flag: options.statusListen } } : {}),
  });
  const announced = starting.then((relay) => {
    logger.announce(
      `Portal relay ${relay.nodeId} of project ${relay.projectId} listening on ${relay.listening}, ` +
        `reached as ${relay.address} (certificate fingerprint ${relay.fingerprint})`,
    );
    if (relay.status) logger.announce(`relay status server on http://${relay.status} (GET /metrics, GET /healthz)`);
    return { ...relay, close: () => relay.stop() };
  });
  // Listening from the start: a signal while the relay enrolls stops it once it has started.
  await stopOnSignal(announced, { drainMs, log: (line) => logger.announce(line), name: 'the relay' });
}

/** The first IPv4 address of this machine that is not loopback: where other machines likely reach it. */
function firstNetworkAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return '127.0.0.1';
}

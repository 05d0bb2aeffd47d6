/**
 * `portal controller start`: a controller in the foreground, for self-hosting (and for `portal enroll`); the
 * other `portal controller` commands are registered here, each from its own file.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { Registry } from 'prom-client';
import { startController, type ControllerOptions } from '../controller/controller.ts';
import { RelayServer } from '../relay/server.ts';
import { parseHostPort, socketHost } from '../shared/address.ts';
import { drainFromEnvironment, stopOnSignal } from '../shared/graceful-stop.ts';
import { durationRanges, durationSyntax } from '../shared/duration.ts';
import { BoundedLogFile, redirectStandardError } from '../shared/bounded-log.ts';
import { InputError, printable } from '../shared/errors.ts';
import { addressesOf } from '../wire/replica-addresses.ts';
import { tuneGarbageCollectionForThroughput } from '../shared/gc-tuning.ts';
import { reduceMemoryAfterBursts } from '../shared/memory-reducer.ts';
import { defaultNetworkDomain } from '../shared/product.ts';
import { describeSealingKey, sealingKeyVariables } from '../shared/sealing-key.ts';
import { registerControllerBackup } from './controller-backup.ts';
import { registerControllerRestore } from './controller-restore.ts';
import { registerControllerMigrateStore } from './controller-migrate-store.ts';
import { registerControllerStop } from './controller-stop.ts';
import { controllerSealingKey } from './controller-sealing-key.ts';
import { durationFlag } from './duration-flag.ts';
import { embeddedControllerDirectory, portalHome } from './home.ts';
import { adminCodeLifetimeMs } from './limits.ts';
import { serveStatus } from '../shared/process-status.ts';
import { requirePublicAddressOnWildcard } from './public-address.ts';
import { parseStatusListen, statusListenDefault, statusListenHelp } from './status-listen.ts';
import { processStart } from '../shared/process-state.ts';

export interface ControllerStartOptions {
  /** @default "127.0.0.1:4000" */
  readonly listen: string;
  /** Every address given, comma-joined (the flag may be repeated). */
  readonly publicAddress?: string;
  /** @default "$PORTAL_HOME/controller" */
  readonly dataDir?: string;
  readonly store?: string;
  /** The PostgreSQL store's password, on the file's first line. @default PORTAL_STORE_PASSWORD_FILE, else PGPASSWORD */
  readonly storePasswordFile?: string;
  /** @default "portal.example.net" */
  readonly networkDomain: string;
  /** @default "1h" */
  readonly credentialLifetime: string;
  readonly readyJson?: boolean;
  readonly runtimeFile?: string;
  /** Log to this file, kept under 10 MiB (the lines before go to <file>.1), instead of standard error. */
  readonly logFile?: string;
  /**
   * @default PORTAL_CONTROLLER_SEALING_KEY_FILE or PORTAL_CONTROLLER_SEALING_KEY, else the systemd credential
   * controller-seal.key, else $PORTAL_HOME/keys/controller-seal.key with a warning
   */
  readonly sealingKeyFile?: string;
  /** false with --no-relay: relay nodes carry every portal. @default true */
  readonly relay: boolean;
  /** Print a one-time admin code although the controller hosts projects already. */
  readonly adminCode?: boolean;
  /** Where GET /metrics and GET /healthz are served: HOST:PORT, PORT, 0 or off. @default "127.0.0.1:0" */
  readonly statusListen: string;
  /** Where the web console is served (host:port), or false with --no-console. @default "127.0.0.1:0" */
  readonly console: string | false;
}

/**
 * The relay inside the controller process, on its port: the default, so one process carries a project.
 * Its metrics go to `registry`, served beside the controller's.
 */
export function embeddedRelay(
  log?: (line: string) => void,
  registry?: Registry,
): NonNullable<ControllerOptions['relay']> {
  return (verifyPeer, onRefused) =>
    new RelayServer({ verifyPeer, relay: { onRefused }, ...(log ? { log } : {}), ...(registry ? { registry } : {}) });
}

export function registerController(program: Command): void {
  const controller = program
    .command('controller')
    .description('run a controller (the coordination service that hosts projects)');
  controller
    .command('start')
    .description('run a controller in the foreground and print a one-time admin code')
    .option('--listen <host:port>', 'address to listen on (port 0 picks a free one)', '127.0.0.1:4000')
    .option(
      '--public-address <host:port>',
      'address nodes dial, written into tickets (default: the listen address); repeat it for every replica ' +
        'of a controller on PostgreSQL, and nodes fail over between them',
      (value: string, previous: string | undefined) => (previous === undefined ? value : `${previous},${value}`),
    )
    .option('--data-dir <dir>', 'where the controller keeps its keys and store (default: $PORTAL_HOME/controller)')
    .option(
      '--store <url>',
      'sqlite:PATH (default: controller.db in the data directory), or postgres://USER@HOST:PORT[,HOST:PORT]/DATABASE ' +
        'for replicas that share one database (sslmode and target_session_attrs as libpq takes them)',
    )
    .option(
      '--store-password-file <path>',
      'file whose first line is the PostgreSQL password (also PORTAL_STORE_PASSWORD_FILE, or PGPASSWORD); ' +
        'never in the URL, which every user of the machine can read',
    )
    .option(
      '--network-domain <domain>',
      'domain of TLS inlet names <label>.<project_id>.<domain>',
      defaultNetworkDomain,
    )
    .option(
      '--credential-lifetime <duration>',
      `lifetime of node certificates, renewed at half of it: ${durationSyntax(durationRanges.credential)}`,
      '1h',
    )
    .option('--ready-json', 'print one JSON line when listening (used by portal enroll)')
    .option('--runtime-file <path>', 'write pid and address here while running')
    .option(
      '--log-file <path>',
      'log to this file instead of standard error, rotated to <path>.1 at 10 MiB (used by portal enroll)',
    )
    .option(
      '--sealing-key-file <path>',
      'file holding the key that seals the project CA keys, ' +
        `outside the data directory (also ${sealingKeyVariables.controllerFile}, ` +
        `the key itself in ${sealingKeyVariables.controllerMaterial}, or the systemd credential controller-seal.key)`,
    )
    .option('--no-relay', 'serve no relay in this process: portals then need relay nodes (portal relay start)')
    .option(
      '--admin-code',
      'print a one-time admin code for another project although this controller hosts projects already ' +
        '(by default only a controller with none prints one, so that no code sits in a service log)',
    )
    .option('--status-listen <address>', statusListenHelp, statusListenDefault)
    .option(
      '--console <host:port>',
      "serve the web console here: over HTTP on loopback, over HTTPS with the controller's certificate " +
        'anywhere else (portal console prints a sign-in link)',
      '127.0.0.1:0',
    )
    .option('--no-console', 'serve no web console')
    .action(async (options: ControllerStartOptions) => runController(options));
  registerControllerStop(controller);
  registerControllerBackup(controller);
  registerControllerRestore(controller);
  registerControllerMigrateStore(controller);
}

async function runController(options: ControllerStartOptions): Promise<void> {
  if (options.logFile) redirectStandardError(openLogFile(options.logFile));
  tuneGarbageCollectionForThroughput();
  reduceMemoryAfterBursts();
  const listen = parseHostPort(options.listen, true);
  if (!listen.ok)
    throw new InputError('BAD_FLAG', `--listen ${options.listen}: expected host:port, but ${listen.reason}`, {
      hint: 'give --listen 0.0.0.0:4000, for example',
    });
  requirePublicAddressOnWildcard(options.listen, listen.address, options.publicAddress);
  const badAddress = addressesOf(options.publicAddress ?? '').find((address) => !parseHostPort(address).ok);
  if (badAddress !== undefined) {
    throw new InputError('BAD_FLAG', `--public-address ${badAddress} is not host:port`, {
      hint: 'give the address nodes dial, such as controller.example.net:4000',
    });
  }
  // Replicas: an embedded relay would be told to members as reachable at every replica's address, and
  // serve only the nodes that reached its own replica.
  if (options.relay && addressesOf(options.publicAddress ?? '').length > 1)
    throw new InputError(
      'BAD_FLAG',
      '--public-address names several controller replicas, whose embedded relays cannot serve one project together',
      { hint: 'start every replica with --no-relay and run relay nodes (portal relay start); see docs/replicas.md' },
    );
  const credentialLifetimeMs = durationFlag(
    '--credential-lifetime',
    options.credentialLifetime,
    durationRanges.credential,
  );
  const statusListen = parseStatusListen(options.statusListen);
  const consoleAddress = options.console === false ? undefined : consoleListen(options.console);
  const drainMs = drainFromEnvironment(process.env);
  const log = (line: string) => process.stderr.write(`${new Date().toISOString()} INFO ${line}\n`);
  const relayRegistry = new Registry();
  const dataDir = options.dataDir ?? embeddedControllerDirectory(portalHome());
  const { source: sealingKey, defaulted } = controllerSealingKey(options.sealingKeyFile, process.env);
  // Listening from the start: a signal while the controller opens its store or binds stops it once started.
  const starting = (async () => {
    const running = await startController({
      dataDir,
      sealingKey,
      host: socketHost(listen.address.host),
      port: listen.address.port,
      ...(options.publicAddress ? { publicAddress: options.publicAddress } : {}),
      ...(options.store ? { store: options.store } : {}),
      ...storePasswordFile(options),
      networkDomain: options.networkDomain,
      credentialLifetimeMs,
      ...(options.relay ? { relay: embeddedRelay(log, relayRegistry) } : {}),
      ...(consoleAddress ? { console: consoleAddress } : {}),
      log,
    });
    const status = statusListen
      ? await serveStatus({
          listen: statusListen,
          flag: options.statusListen,
          process: 'controller',
          registries: options.relay ? [running.registry, relayRegistry] : [running.registry],
          health: () => running.health(),
        }).catch(async (error: unknown) => {
          await running.close();
          throw error;
        })
      : undefined;
    if (status) log(`status server on http://${status.address} (GET /metrics, GET /healthz)`);
    if (running.console) log(`web console on ${running.console.url} (portal console prints a sign-in link)`);
    if (defaulted) {
      const path = describeSealingKey(sealingKey);
      process.stderr.write(
        `${new Date().toISOString()} WARN the sealing key of this controller is ${path}, ` +
          'outside its data directory but on this machine: move it to a secret store and give --sealing-key-file or ' +
          `${sealingKeyVariables.controllerFile}\n`,
      );
    }
    // A code is a secret valid for a day: printed to a log (a service's journal) only when it is
    // needed, for the first project, or asked for.
    const projects = await running.service.projectCount();
    const adminCode =
      options.readyJson || options.adminCode || projects === 0
        ? await running.service.createAdminCode(adminCodeLifetimeMs)
        : undefined;
    // Where it listens, for a probe from this machine (the public address may not lead back here).
    const where = {
      pid: process.pid,
      address: running.address,
      listening: running.listening,
      fingerprint: running.fingerprint,
      ...(status ? { status: status.address } : {}),
      ...(running.console ? { console: running.console.url } : {}),
    };
    if (options.runtimeFile) {
      // And how long it drains, for whoever stops it; its start time tells this process from a later one
      // given the same pid.
      const started = processStart(process.pid);
      const runtime = { ...where, drainMs, ...(started ? { processStart: started } : {}) };
      await writeFile(`${options.runtimeFile}.tmp`, `${JSON.stringify(runtime)}\n`, { mode: 0o600 });
      await rename(`${options.runtimeFile}.tmp`, options.runtimeFile);
    }
    if (options.readyJson) {
      const ready = { ...where, adminCode };
      process.stdout.write(`${JSON.stringify(ready)}\n`);
    } else {
      console.log(
        `controller listening on ${running.listening}, reached as ${running.address} ` +
          `(certificate fingerprint ${running.fingerprint})`,
      );
      if (adminCode) {
        console.log(`one-time admin code (valid 24h): ${adminCode}`);
        console.log(`enroll an administrator with: portal enroll --controller ${running.address} --code ${adminCode}`);
      } else {
        console.log(
          `it hosts ${projects === 1 ? '1 project' : `${projects} projects`}; for another project's administrator, ` +
            'start it once with --admin-code to print a one-time code',
        );
      }
    }
    return {
      ...running,
      async close() {
        await status?.close();
        await running.close();
        // Gone with the process: a later look does not take another listener on the port for it.
        if (options.runtimeFile) await rm(options.runtimeFile, { force: true });
      },
    };
  })();
  await stopOnSignal(starting, { drainMs, log, name: 'the controller' });
}

/** The --log-file, opened before anything starts: a path it cannot write is a flag to fix, said on standard error. */
function openLogFile(path: string): BoundedLogFile {
  try {
    return new BoundedLogFile(path);
  } catch (error) {
    const full = printable(resolve(path));
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const directory = dirname(full);
      throw new InputError('BAD_FLAG', `--log-file ${full}: the directory ${directory} does not exist`, {
        hint: `create it first (mkdir -p ${directory}), or give a file in a directory that exists`,
      });
    }
    throw new InputError(
      'BAD_FLAG',
      `--log-file ${full} cannot be opened for writing (${code ?? (error as Error).message})`,
      { hint: 'give a file this user may create or append to', cause: error },
    );
  }
}

/** The --console address, as the listener takes it. */
function consoleListen(flag: string): { host: string; port: number } {
  const parsed = parseHostPort(flag, true);
  if (!parsed.ok)
    throw new InputError('BAD_FLAG', `--console ${flag}: expected host:port, but ${parsed.reason}`, {
      hint: 'give --console 127.0.0.1:8443, for example, or --no-console',
    });
  return { host: socketHost(parsed.address.host), port: parsed.address.port };
}

function storePasswordFile(options: ControllerStartOptions): { storePasswordFile?: string } {
  const file = options.storePasswordFile ?? process.env.PORTAL_STORE_PASSWORD_FILE;
  return file ? { storePasswordFile: file } : {};
}

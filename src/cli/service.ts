/**
 * `portal service install node|relay|controller`: a systemd unit that runs this Portal as a service
 * (rendered by src/service/systemd-unit.ts), written to /etc/systemd/system or --output, or printed
 * with --dry-run; then the commands that create the user and start the unit.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { version } from '../node/version.ts';
import { parseNodeConfig, readConfigurationArgument } from '../node/config.ts';
import { portalsOf } from '../node/portals.ts';
import { parseHostPort } from '../shared/address.ts';
import { InputError, RuntimeFailure, printable } from '../shared/errors.ts';
import { sealingKeyFileNames, sealingKeyVariables } from '../shared/sealing-key.ts';
import {
  renderUnit,
  stateRoot,
  type Credential,
  type ServiceRole,
  type ServiceUnit,
  type Word,
} from '../service/systemd-unit.ts';
import { controllerKeyCredential } from './controller-sealing-key.ts';
import { programReadableByAll, unitProgram } from './program-location.ts';
import {
  absolute,
  belowPort1024,
  checkExtraArguments,
  checkRoleFlags,
  drainOf,
  existing,
  parseEnvironment,
  type ServiceInstallOptions,
} from './service-input.ts';

const roles: readonly ServiceRole[] = ['node', 'relay', 'controller'];
const ticketCredential = 'enrollment.ticket';
const configurationCredential = 'configuration';
const defaultListen: Record<Exclude<ServiceRole, 'node'>, string> = {
  relay: '0.0.0.0:4100',
  controller: '0.0.0.0:4000',
};

export function registerService(program: Command): void {
  const service = program.command('service').description('run Portal as a systemd service');
  service
    .command('install')
    .description(
      'write a systemd unit that runs a node, a relay or a controller (arguments after -- go to its command)',
    )
    .argument('<role>', 'node, relay or controller')
    .argument('[arguments...]', 'more arguments for the command the unit runs, after --')
    .option('--output <dir>', 'where to write <name>.service', '/etc/systemd/system')
    .option('--dry-run', 'print the unit instead of writing it')
    .option('--force', 'replace a unit file of the same name')
    .option('--name <name>', 'the unit name (default: portal-<role>)')
    .option('--user <user>', 'the dedicated user it runs as (create it with useradd --system)', 'portal')
    .option(
      '--home <dir>',
      "PORTAL_HOME, the service's state and the only place it writes (default: /var/lib/portal/<role>)",
    )
    .option(
      '--env <name=value>',
      'an environment variable for the process, such as NODE_LOG_LEVEL=debug or PORTAL_DRAIN_TIMEOUT=1m ' +
        '(repeatable; the unit file is readable by all, so no secrets)',
      collect,
      [],
    )
    .option(
      '--configuration <file>',
      'node: its configuration file (JSON or YAML), loaded as a credential at every start',
    )
    .option(
      '--enrollment-ticket-file <file>',
      'node, relay: the enrollment ticket, loaded as a credential (needed for the first start only)',
    )
    .option(
      '--sealing-key-file <file>',
      'controller (required), node: the sealing key, loaded as a credential so that it stays readable by root alone',
    )
    .option('--listen <host:port>', 'relay (default 0.0.0.0:4100), controller (default 0.0.0.0:4000): where it listens')
    .option('--public-address <host:port>', 'relay, controller: the address nodes dial')
    .option(
      '--controller <host:port>',
      "relay: the controller's address, when this machine reaches it by another than the ticket's",
    )
    .action(async (role: string, extra: string[], options: ServiceInstallOptions) => install(role, extra, options));
}

function collect(value: string, previous: readonly string[]): string[] {
  return [...previous, value];
}

async function install(roleText: string, extra: readonly string[], options: ServiceInstallOptions): Promise<void> {
  if (!(roles as readonly string[]).includes(roleText)) {
    throw new InputError('BAD_FLAG', `portal service install ${printable(roleText)}: no such role`, {
      hint: 'give node, relay or controller',
    });
  }
  const role = roleText as ServiceRole;
  const unit = await unitFor(role, extra, options);
  const text = renderUnit(unit);
  for (const warning of await programReadableByAll(unit.program, unit.user))
    console.error(`portal: warning: ${warning}`);
  if (options.dryRun) {
    process.stdout.write(text);
    return;
  }
  const path = join(options.output, `${unit.name}.service`);
  await writeUnit(path, text, options.force === true);
  console.log(`Wrote ${path}.`);
  console.log('To start it, as root:');
  for (const line of nextSteps(unit)) console.log(`  ${line}`);
}

async function unitFor(
  role: ServiceRole,
  extra: readonly string[],
  options: ServiceInstallOptions,
): Promise<ServiceUnit> {
  checkRoleFlags(role, options);
  const name = options.name?.replace(/\.service$/, '') ?? `portal-${role}`;
  if (!/^[A-Za-z0-9][A-Za-z0-9:_.@-]*$/.test(name))
    throw new InputError('BAD_FLAG', `--name ${printable(name)} is not a unit name`, {
      hint: 'give letters, digits and -_.:@, such as portal-node',
    });
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(options.user))
    throw new InputError('BAD_FLAG', `--user ${printable(options.user)} is not a user name`, {
      hint: 'give a name such as portal',
    });
  if (options.user === 'root')
    throw new InputError('BAD_FLAG', '--user root would run Portal with every privilege', {
      hint: 'give a dedicated user such as portal (useradd --system portal)',
    });
  const home = absolute(options.home ?? `${stateRoot}portal/${role}`, '--home');
  if (/^\/(home|root|run\/user)(\/|$)/.test(home)) {
    throw new InputError('BAD_FLAG', `--home ${home} lies where the unit's ProtectHome=yes hides it`, {
      hint: `give a directory under ${stateRoot}, such as ${stateRoot}portal/${role}`,
    });
  }
  const environment = options.env.map((text) => parseEnvironment(text, role));
  const drainMs = drainOf(environment);
  checkExtraArguments(extra, role);
  const parts = role === 'node' ? await nodeParts(options, environment) : listenerParts(role, options);
  return {
    role,
    name,
    user: options.user,
    home,
    program: await unitProgram({ node: process.execPath, nodeArguments: process.execArgv, script: process.argv[1] }),
    arguments: [...parts.words, ...extra],
    ...(parts.reload ? { reload: parts.reload } : {}),
    credentials: parts.credentials,
    environment: [...environment, ...parts.environment],
    drainMs,
    privilegedPort: parts.privilegedPort,
    portalVersion: version,
  };
}

/** What a role adds to a unit: the command's words, the credentials they name, and environment. */
interface RoleParts {
  readonly words: Word[];
  /** A node's ExecReload= arguments. */
  readonly reload?: Word[];
  readonly credentials: Credential[];
  readonly environment: (readonly [string, Word])[];
  readonly privilegedPort: boolean;
}

/** The ticket as a credential, and the flag that names it. */
function ticketParts(options: ServiceInstallOptions, parts: RoleParts): void {
  if (!options.enrollmentTicketFile) return;
  parts.credentials.push({
    id: ticketCredential,
    path: existing(options.enrollmentTicketFile, '--enrollment-ticket-file'),
  });
  parts.words.push('--enrollment-ticket-file', { credential: ticketCredential });
}

/**
 * `portal node create --foreground`, its configuration (checked now) and ticket as credentials, and its
 * sealing key when given.
 */
async function nodeParts(
  options: ServiceInstallOptions,
  environment: readonly (readonly [string, string])[],
): Promise<RoleParts> {
  if (!options.configuration)
    throw new InputError('BAD_FLAG', 'portal service install node needs --configuration', {
      hint: 'give the node configuration file (JSON or YAML) the service runs with',
    });
  const configuration = existing(options.configuration, '--configuration');
  const { name: source, text } = await readConfigurationArgument(configuration, '--configuration');
  // Checked as the service will read it: an outlet's $NAME placeholders come from the unit's --env.
  const config = parseNodeConfig(source, text, { environment: Object.fromEntries(environment) });
  const listens = portalsOf(config).inlets.flatMap((inlet) => [inlet.from, inlet.direct || undefined]);
  const parts: RoleParts = {
    // A credential too: the service user needs no access to /etc/portal, and a ticket in it stays private.
    words: ['node', 'create', '--foreground', '--configuration', { credential: configurationCredential }],
    credentials: [{ id: configurationCredential, path: configuration }],
    // The source file, not the credential: systemd copied that at start, and never again.
    reload: ['node', 'reload', '--configuration', configuration],
    environment: [],
    privilegedPort: listens.some(belowPort1024),
  };
  ticketParts(options, parts);
  if (options.sealingKeyFile) {
    parts.credentials.push({
      id: sealingKeyFileNames.node,
      path: existing(options.sealingKeyFile, '--sealing-key-file'),
    });
    parts.environment.push([sealingKeyVariables.node, { credential: sealingKeyFileNames.node }]);
  }
  return parts;
}

/** `portal relay start` with its ticket, or `portal controller start` with its sealing key, each where it listens. */
function listenerParts(role: Exclude<ServiceRole, 'node'>, options: ServiceInstallOptions): RoleParts {
  const listen = options.listen ?? defaultListen[role];
  const parsed = parseHostPort(listen);
  if (!parsed.ok)
    throw new InputError('BAD_FLAG', `--listen ${printable(listen)}: expected host:port, but ${parsed.reason}`, {
      hint: `give --listen ${defaultListen[role]}, for example`,
    });
  for (const [flag, value] of [
    ['--public-address', options.publicAddress],
    ['--controller', options.controller],
  ] as const) {
    if (value !== undefined && !parseHostPort(value).ok)
      throw new InputError('BAD_FLAG', `${flag} ${printable(value)} is not host:port`, {
        hint: `give ${flag} HOST:PORT`,
      });
  }
  const parts: RoleParts = {
    words: [
      role,
      'start',
      '--listen',
      listen,
      ...(options.publicAddress ? ['--public-address', options.publicAddress] : []),
    ],
    credentials: [],
    environment: [],
    privilegedPort: parsed.address.port < 1024,
  };
  if (role === 'relay') {
    if (options.controller) parts.words.push('--controller', options.controller);
    ticketParts(options, parts);
    return parts;
  }
  if (['0.0.0.0', '[::]'].includes(parsed.address.host) && !options.publicAddress) {
    throw new InputError(
      'BAD_FLAG',
      `--listen ${listen} accepts nodes on every address, but without --public-address tickets would name ` +
        `127.0.0.1:${parsed.address.port}, which only this machine reaches`,
      {
        hint: `add --public-address HOST:${parsed.address.port}, the name or address nodes dial`,
      },
    );
  }
  if (!options.sealingKeyFile) {
    throw new InputError('BAD_FLAG', 'portal service install controller needs --sealing-key-file', {
      hint:
        'make the key once, readable by root alone: ' +
        '(umask 077; openssl rand -base64 32 > /etc/portal/controller-seal.key); the unit loads it as a credential',
    });
  }
  parts.credentials.push({ id: controllerKeyCredential, path: existing(options.sealingKeyFile, '--sealing-key-file') });
  return parts;
}

async function writeUnit(path: string, text: string, force: boolean): Promise<void> {
  if (existsSync(path) && !force) {
    throw new InputError('UNIT_EXISTS', `${path} exists already`, {
      hint: 'add --force to replace it, or give another --name',
    });
  }
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await mkdir(join(path, '..'), { recursive: true });
    const file = await open(temporary, 'w', 0o644);
    try {
      await file.writeFile(text);
      await file.chmod(0o644);
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    throw new RuntimeFailure(
      'UNIT_UNWRITABLE',
      `cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      {
        hint: 'run it as root, or give --output a directory you may write (and --dry-run prints the unit)',
      },
    );
  }
}

/** The commands that create the user, start the unit and follow its log. */
function nextSteps(unit: ServiceUnit): string[] {
  return [
    `id -u ${unit.user} >/dev/null 2>&1 || ` +
      `useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ${unit.user}`,
    ...(unit.home.startsWith(stateRoot) ? [] : [`install -d -o ${unit.user} -m 0700 ${unit.home}`]),
    'systemctl daemon-reload',
    `systemctl enable --now ${unit.name}`,
    `journalctl -u ${unit.name} -f    # its log`,
  ];
}

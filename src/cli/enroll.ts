/**
 * `portal enroll`: creates a project and makes this machine its administrator. With no --controller it
 * starts the embedded default controller in the background, its state under $PORTAL_HOME: on loopback
 * for this machine alone, or with --listen and --public-address where nodes on other machines reach it.
 * In a home that holds an administrator already, it changes nothing: with no options it says so, and
 * any option (another project, another controller) is refused, since it would be ignored.
 */
import type { Command } from 'commander';
import { parseHostPort } from '../shared/address.ts';
import { InputError, printable } from '../shared/errors.ts';
import { enrollAdministrator, enrollWithTicket } from '../node/enrollment.ts';
import { loadIdentity, type StoredIdentity } from '../node/identity-store.ts';
import { decodeAdminCode, decodeTicket, encodeAdminCode, encodeTicket } from '../wire/ticket.ts';
import { readEmbeddedController, startEmbeddedController, type EmbeddedController } from './embedded-controller.ts';
import { adminDirectory, embeddedControllerLog, portalHome } from './home.ts';
import { requirePublicAddressOnWildcard } from './public-address.ts';

export interface EnrollOptions {
  readonly controller?: string;
  readonly code?: string;
  /** @default "default" */
  readonly project?: string;
  /** Where the embedded controller listens. @default "127.0.0.1:0" */
  readonly listen?: string;
  /** The address tickets carry for the embedded controller. @default the listening address */
  readonly publicAddress?: string;
  /** A ticket from `portal project ticket --admin`: join an existing project as another administrator. */
  readonly ticket?: string;
}

/** The options as a user typed them, in the order of the help. */
const flags: readonly [keyof EnrollOptions, string][] = [
  ['controller', '--controller'],
  ['code', '--code'],
  ['project', '--project'],
  ['listen', '--listen'],
  ['publicAddress', '--public-address'],
  ['ticket', '--ticket'],
];

export function registerEnroll(program: Command): void {
  program
    .command('enroll')
    .description('create a project and enroll this machine as its administrator')
    .option('--controller <host:port>', 'a self-hosted controller (default: start the embedded one)')
    .option('--code <code>', 'the one-time admin code that portal controller start printed')
    .option('--project <name>', 'a name for the project (default: default)')
    .option(
      '--listen <host:port>',
      'where the embedded controller listens (default: 127.0.0.1 on a free port; ' +
        '0.0.0.0:4000 with --public-address for nodes on other machines)',
    )
    .option(
      '--public-address <host:port>',
      'the address nodes dial to reach the embedded controller, written into tickets (default: the listening address)',
    )
    .option(
      '--ticket <ticket>',
      'join an existing project as another administrator, with a ticket from portal project ticket --admin',
    )
    .action(async (options: EnrollOptions) => {
      const home = portalHome();
      const existing = await loadIdentity(adminDirectory(home));
      if (existing) return alreadyEnrolled(home, existing, options);
      if (options.ticket !== undefined) return enrollAsAdministrator(home, options.ticket, options);
      checkFlags(options);
      const { code, embedded } = await adminCode(home, options);
      const identity = await enrollAdministrator(adminDirectory(home), code, options.project ?? 'default');
      console.log(
        `Enrolled: administrator of project ${identity.record.projectId} on controller ${identity.record.controller}.`,
      );
      if (embedded) {
        console.log(
          `The embedded controller runs in the background (pid ${embedded.pid}, ` +
            `listening on ${embedded.listening ?? embedded.address}); it logs to ${embeddedControllerLog(home)}.`,
        );
        if (embedded.console)
          console.log(`Its web console is at ${embedded.console}: portal console prints a link that signs you in.`);
      }
    });
}

/** With no options, a friendly confirmation; any option would be ignored, so it is refused. */
function alreadyEnrolled(home: string, existing: StoredIdentity, options: EnrollOptions): void {
  const { projectId, controller } = existing.record;
  const given = flags
    .filter(([key]) => options[key] !== undefined)
    .map(([key, flag]) => `${flag} ${printable(String(options[key]))}`);
  if (given.length === 0) {
    console.log(`Already enrolled: administrator of project ${projectId} on ${controller}.`);
    return;
  }
  throw new InputError(
    'ALREADY_ENROLLED',
    `${home} already holds the administrator of project ${projectId} on controller ${controller}, ` +
      `so ${given.join(' ')} would be ignored`,
    {
      hint:
        `run portal reset --yes first (it removes that project's state under ${home}), ` +
        'or set PORTAL_HOME to another directory; portal enroll with no options confirms the enrollment',
    },
  );
}

/**
 * Joins a project as another administrator with a ticket from `portal project ticket --admin`. The
 * ticket is checked first, so a wrong one spends nothing.
 */
async function enrollAsAdministrator(home: string, text: string, options: EnrollOptions): Promise<void> {
  const others = flags
    .filter(([key]) => key !== 'ticket' && key !== 'controller' && options[key] !== undefined)
    .map(([, flag]) => flag);
  if (others.length > 0)
    throw new InputError('BAD_FLAG', `${others.join(' and ')} cannot go with --ticket`, {
      hint: 'the ticket names the project and its controller; give --controller only to reach it by another address',
    });
  const ticket = decodeTicket(text);
  if (ticket.grants?.admin !== true)
    throw new InputError('WRONG_TICKET', 'this ticket does not enroll an administrator', {
      hint: 'issue one with portal project ticket --admin (a node takes its ticket with portal node create)',
    });
  if (options.controller !== undefined && !parseHostPort(options.controller).ok)
    throw new InputError('BAD_FLAG', `--controller ${printable(options.controller)} is not host:port`, {
      hint: 'give the address this machine reaches the controller at',
    });
  const pinned = options.controller === undefined ? ticket : { ...ticket, controller: options.controller };
  const identity = await enrollWithTicket(adminDirectory(home), encodeTicket(pinned));
  console.log(
    `Enrolled: administrator ${identity.record.nodeId} of project ${identity.record.projectId} ` +
      `on controller ${identity.record.controller}.`,
  );
}

/** Refuses options that contradict each other or would give tickets an address other machines cannot use. */
function checkFlags(options: EnrollOptions): void {
  const embeddedFlags = [
    options.listen === undefined ? '' : '--listen',
    options.publicAddress === undefined ? '' : '--public-address',
  ]
    .filter(Boolean)
    .join(' and ');
  if (embeddedFlags && (options.controller !== undefined || options.code !== undefined)) {
    throw new InputError(
      'BAD_FLAG',
      `${embeddedFlags} ${embeddedFlags.includes(' and ') ? 'are' : 'is'} for the embedded controller, ` +
        'which --controller and --code replace',
      {
        hint:
          'give --listen and --public-address to portal controller start on the controller machine, ' +
          'or leave out --controller and --code',
      },
    );
  }
  if (options.listen !== undefined) {
    const listen = parseHostPort(options.listen, true);
    if (!listen.ok)
      throw new InputError(
        'BAD_FLAG',
        `--listen ${printable(options.listen)}: expected host:port, but ${listen.reason}`,
        { hint: 'give --listen 0.0.0.0:4000, for example' },
      );
    requirePublicAddressOnWildcard(options.listen, listen.address, options.publicAddress);
  }
  if (options.publicAddress !== undefined) {
    if (!parseHostPort(options.publicAddress).ok) {
      throw new InputError('BAD_FLAG', `--public-address ${printable(options.publicAddress)} is not host:port`, {
        hint: 'give the address nodes dial, such as controller.example.net:4000',
      });
    }
    const listen = options.listen === undefined ? undefined : parseHostPort(options.listen, true);
    if (!listen?.ok || listen.address.port === 0) {
      throw new InputError(
        'BAD_FLAG',
        `--public-address needs --listen with a fixed port: nodes dial ${options.publicAddress}, ` +
          'which must lead to the port the embedded controller listens on',
        {
          hint: 'give both, such as --listen 0.0.0.0:4000 --public-address controller.example.net:4000',
        },
      );
    }
  }
}

async function adminCode(
  home: string,
  options: EnrollOptions,
): Promise<{ code: string; embedded?: EmbeddedController }> {
  if (options.controller || options.code) {
    if (!options.controller || !options.code) {
      throw new InputError('BAD_FLAG', '--controller and --code go together', {
        hint: 'give both, as portal controller start printed them, or neither for the embedded controller',
      });
    }
    if (!parseHostPort(options.controller).ok)
      throw new InputError('BAD_FLAG', `--controller ${options.controller} is not host:port`, {
        hint: 'give the address the controller printed',
      });
    return { code: adminCodeAt(options.code, options.controller) };
  }
  if (await readEmbeddedController(home)) {
    throw new InputError(
      'ALREADY_RUNNING',
      'the embedded controller runs already but this machine holds no administrator identity',
      {
        hint: 'run portal reset --yes to start over',
      },
    );
  }
  const started = await startEmbeddedController(home, {
    listen: options.listen ?? '127.0.0.1:0',
    ...(options.publicAddress ? { publicAddress: options.publicAddress } : {}),
  });
  if (!started.adminCode) throw new Error('the embedded controller gave no admin code');
  return { code: started.adminCode, embedded: started };
}

/** An admin code for a controller reached at `controller`: the code pins its certificate, this its address. */
export function adminCodeAt(code: string, controller: string): string {
  return encodeAdminCode({ ...decodeAdminCode(code), controller });
}

/**
 * The checks of `portal service install`'s flags and arguments: what a unit may name (files that exist,
 * plain absolute paths, NAME=VALUE settings) and what it must never carry (a ticket, a sealing key, an
 * admin code), since a unit file is readable by every user.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseHostPort } from '../shared/address.ts';
import { InputError, printable } from '../shared/errors.ts';
import { drainFromEnvironment } from '../shared/graceful-stop.ts';
import { sealingKeyVariables } from '../shared/sealing-key.ts';
import { hasControlCharacters, type ServiceRole } from '../service/systemd-unit.ts';

/** The flags of portal service install, as commander parses them. */
export interface ServiceInstallOptions {
  /** @default "/etc/systemd/system" */
  readonly output: string;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  /** @default "portal-<role>" */
  readonly name?: string;
  /** @default "portal" */
  readonly user: string;
  /** @default "/var/lib/portal/<role>" */
  readonly home?: string;
  /** NAME=VALUE, repeatable. */
  readonly env: readonly string[];
  readonly configuration?: string;
  readonly enrollmentTicketFile?: string;
  readonly sealingKeyFile?: string;
  readonly listen?: string;
  readonly publicAddress?: string;
  readonly controller?: string;
}

/** Options that mean nothing for `role` are refused, not ignored. */
export function checkRoleFlags(role: ServiceRole, options: ServiceInstallOptions): void {
  const allowed: Record<string, readonly ServiceRole[]> = {
    '--configuration': ['node'],
    '--enrollment-ticket-file': ['node', 'relay'],
    '--sealing-key-file': ['node', 'controller'],
    '--listen': ['relay', 'controller'],
    '--public-address': ['relay', 'controller'],
    '--controller': ['relay'],
  };
  const given: Record<string, unknown> = {
    '--configuration': options.configuration,
    '--enrollment-ticket-file': options.enrollmentTicketFile,
    '--sealing-key-file': options.sealingKeyFile,
    '--listen': options.listen,
    '--public-address': options.publicAddress,
    '--controller': options.controller,
  };
  for (const [flag, roles] of Object.entries(allowed)) {
    if (given[flag] !== undefined && !roles.includes(role)) {
      throw new InputError('BAD_FLAG', `${flag} does not apply to a ${role}`, {
        hint: `leave it out; it is for ${roles.join(' and ')} units`,
      });
    }
  }
}

/** The absolute path of a file that must exist now (systemd would otherwise fail the unit at its start). */
export function existing(path: string, flag: string): string {
  const full = absolute(path, flag);
  if (!existsSync(full))
    throw new InputError('BAD_FLAG', `${flag} ${full} does not exist`, {
      hint: 'create the file first: the unit names it, and systemd reads it at every start',
    });
  return full;
}

export function absolute(path: string, flag: string): string {
  if (hasControlCharacters(path))
    throw new InputError('BAD_FLAG', `${flag} ${printable(path)} holds a control character`, {
      hint: 'give a plain path',
    });
  const full = resolve(path);
  if (/\s/.test(full))
    throw new InputError('BAD_FLAG', `${flag} ${full} holds whitespace`, { hint: 'give a path without spaces' });
  return full;
}

export function parseEnvironment(text: string, role: ServiceRole): readonly [string, string] {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(text);
  if (!match || hasControlCharacters(text))
    throw new InputError('BAD_FLAG', `--env ${printable(text)} is not NAME=VALUE on one line`, {
      hint: 'give --env NODE_LOG_LEVEL=debug, for example',
    });
  const [, name = '', value = ''] = match;
  if (name === 'PORTAL_HOME')
    throw new InputError('BAD_FLAG', '--env PORTAL_HOME=… would contradict --home', { hint: 'give --home' });
  if (name === 'ENROLLMENT_TICKET') throw secretInUnit(`--env ${name}=…`, 'the enrollment ticket', ticketHint(role));
  if (name === sealingKeyVariables.controllerMaterial)
    throw secretInUnit(`--env ${name}=…`, "the controller's sealing key", sealingKeyHint(role));
  return [name, value];
}

/**
 * The drain the process reads from PORTAL_DRAIN_TIMEOUT (the last one given wins, as in systemd), refused as
 * the process would refuse it.
 */
export function drainOf(environment: readonly (readonly [string, string])[]): number {
  const given = environment.filter(([name]) => name === 'PORTAL_DRAIN_TIMEOUT').at(-1);
  return drainFromEnvironment(given === undefined ? {} : { PORTAL_DRAIN_TIMEOUT: given[1] });
}

/** Arguments after `--` go into ExecStart, which every user can read: none may carry a secret. */
export function checkExtraArguments(extra: readonly string[], role: ServiceRole): void {
  for (const word of extra) {
    if (hasControlCharacters(word))
      throw new InputError('BAD_FLAG', `the argument ${printable(word)} holds a control character`, {
        hint: 'give each argument on one line',
      });
    const flag = word.split('=')[0];
    if (flag === '--enrollment-ticket')
      throw secretInUnit(`the argument ${flag}`, 'the enrollment ticket', ticketHint(role));
    if (flag === '--code')
      throw secretInUnit(
        `the argument ${flag}`,
        'a one-time admin code',
        'leave it out: a service takes its secrets as credentials, ' +
          'with --enrollment-ticket-file and --sealing-key-file',
      );
  }
}

const credentialNote = 'the unit loads it as a credential, which only root and the service can read';
const sealingKeyHint = (role: ServiceRole) =>
  role === 'controller'
    ? `give --sealing-key-file FILE instead: ${credentialNote}`
    : 'leave it out: only a controller reads it';
const ticketHint = (role: ServiceRole) =>
  role === 'controller'
    ? 'leave it out: a controller needs no ticket'
    : `give --enrollment-ticket-file FILE instead: ${credentialNote}`;

function secretInUnit(what: string, secret: string, hint: string): InputError {
  return new InputError('BAD_FLAG', `${what} would write ${secret} into the unit file, which every user can read`, {
    hint,
  });
}

export const belowPort1024 = (address: string | undefined) => {
  if (address === undefined) return false;
  const parsed = parseHostPort(address, true);
  return parsed.ok && parsed.address.port > 0 && parsed.address.port < 1024;
};

/**
 * The rules a node configuration must meet beyond its schema, each broken rule located at a JSON
 * pointer: at least one portal; one form per kind; one outlet per relay name; allow expressions that
 * read (with the column of the problem); listen addresses that
 * do not overlap; targets that are host:port once their endpoint placeholders are replaced from the
 * environment. Pure: the configuration with its placeholders replaced, and every broken rule.
 */
import { parseHostPort } from '../shared/address.ts';
import { policyProblem } from '../shared/policy.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { substitutePlaceholders } from './placeholders.ts';
import { portalsOf, type InletPortal } from './portals.ts';
import { durationRanges, durationSyntax, readDuration } from '../shared/duration.ts';

export interface Rule {
  readonly pointer: string;
  readonly message: string;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** The configuration as the node runs it (placeholders replaced where they could be), and what is wrong. */
export function checkNodeConfig(config: NodeConfig, environment: Environment): { config: NodeConfig; rules: Rule[] } {
  const rules: Rule[] = [];
  const outlet = config['tcp-outlet'];
  const outlets = config['tcp-outlets'];
  const inlet = config['tcp-inlet'];
  const inlets = config['tcp-inlets'];
  if (!outlet && !inlet && !outlets && !inlets)
    rules.push({ pointer: '', message: 'the configuration has neither tcp-outlet nor tcp-inlet; give at least one' });
  if (outlet && outlets)
    rules.push({
      pointer: '/tcp-outlets',
      message:
        'tcp-outlet and tcp-outlets are two ways to give the outlets; give one: ' +
        `move tcp-outlet into tcp-outlets under the name "${config.relay ?? 'its relay'}"`,
    });
  else if (config.relay !== undefined && outlets)
    rules.push({
      pointer: '/relay',
      message: 'relay goes with tcp-outlet; with tcp-outlets, each outlet has its own relay (by default its name)',
    });
  if (inlet && inlets)
    rules.push({
      pointer: '/tcp-inlets',
      message:
        'tcp-inlet and tcp-inlets are two ways to give the inlets; give one: ' +
        `move tcp-inlet into tcp-inlets under the name "${inlet.via}"`,
    });
  if (outlet && !config.relay)
    rules.push({ pointer: '/tcp-outlet', message: 'an outlet needs relay: <name> (the relay its ticket grants)' });
  const maxAge = config['revocation-max-age'];
  const age = maxAge === undefined ? undefined : readDuration(maxAge, durationRanges.revocationAge);
  if (age && !age.ok)
    rules.push({
      pointer: '/revocation-max-age',
      message: `revocation-max-age ${age.reason}; give ${durationSyntax(durationRanges.revocationAge)}`,
    });

  const resolved = resolveTargets(config, environment, rules);
  const portals = portalsOf(resolved);
  const byRelay = new Map<string, string>();
  for (const portal of portals.outlets) {
    const first = byRelay.get(portal.relay);
    if (first === undefined) byRelay.set(portal.relay, portal.name);
    else
      rules.push({
        pointer: `${portal.pointer}/relay`,
        message:
          `outlets "${first}" and "${portal.name}" both register the relay name "${portal.relay}"; ` +
          'a node registers each relay name once: give one of them another relay',
      });
  }
  for (const portal of [...portals.outlets, ...portals.inlets]) {
    const problem = policyProblem(portal.allow);
    if (problem !== undefined)
      rules.push({
        pointer: `${portal.pointer}/allow`,
        message:
          `allow is neither an attribute name nor an expression: ${problem} ` +
          '(give a name such as postgres-inlet, or an expression such as team = "ops" and env = "prod")',
      });
  }
  for (const portal of portals.inlets) {
    const from = parseHostPort(portal.from, true);
    if (!from.ok)
      rules.push({ pointer: `${portal.pointer}/from`, message: `expected address:port, but ${from.reason}` });
    if (portal.direct !== false) {
      const direct = parseHostPort(portal.direct, true);
      if (!direct.ok)
        rules.push({ pointer: `${portal.pointer}/direct`, message: `expected address:port, but ${direct.reason}` });
    }
  }
  rules.push(...overlappingListeners(portals.inlets), ...sharedDirectPaths(portals.inlets));
  // A rule about a key left to its default (a plural inlet's via) is located at what holds it.
  return { config: resolved, rules: rules.map((rule) => ({ ...rule, pointer: presentPointer(config, rule.pointer) })) };
}

/** `pointer`, or its nearest ancestor that is in `value`. */
function presentPointer(value: unknown, pointer: string): string {
  let node = value;
  let present = '';
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) break;
    node = (node as Record<string, unknown>)[segment];
    present = `${present}/${segment}`;
  }
  return present;
}

/**
 * Each outlet's target with its placeholders replaced from the environment, checked as host:port; a
 * placeholder whose variable is not set, or a value that does not make host:port, is a broken rule.
 */
function resolveTargets(config: NodeConfig, environment: Environment, rules: Rule[]): NodeConfig {
  const resolve = (to: string, pointer: string): string => {
    const substituted = substitutePlaceholders(to, environment);
    if (!substituted.ok) {
      for (const name of substituted.missing)
        rules.push({
          pointer,
          message:
            `$${name} stands for the environment variable ${name}, which is not set; ` +
            `set ${name} in the node's environment to the service's address, or write the address in its place`,
        });
      return to;
    }
    const target = parseHostPort(substituted.value);
    if (!target.ok) {
      const from = substituted.used.map(({ name, value }) => `${name}=${JSON.stringify(value.slice(0, 80))}`);
      rules.push({
        pointer,
        message:
          `expected host:port, but ${target.reason}` +
          (from.length > 0 ? ` (with ${from.join(', ')} from the environment)` : ''),
      });
    }
    return substituted.value;
  };
  const single = config['tcp-outlet'];
  const named = config['tcp-outlets'];
  return {
    ...config,
    ...(single ? { 'tcp-outlet': { ...single, to: resolve(single.to, '/tcp-outlet/to') } } : {}),
    ...(named
      ? {
          'tcp-outlets': Object.fromEntries(
            Object.entries(named).map(([name, outlet]) => [
              name,
              { ...outlet, to: resolve(outlet.to, `/tcp-outlets/${name}/to`) },
            ]),
          ),
        }
      : {}),
  };
}

interface ListenAddress {
  /** "inlet b", "the direct path of inlet b". */
  readonly what: string;
  readonly pointer: string;
  readonly text: string;
}

const wildcards = new Set(['0.0.0.0', '::', '[::]']);

/**
 * Whether two listen addresses (host:port) would take the same port: the same address, or a wildcard
 * (0.0.0.0, ::) beside any address on that port. Port 0 (the system chooses) never does.
 */
export function listenAddressesOverlap(a: string, b: string): boolean {
  const [first, second] = [parseHostPort(a, true), parseHostPort(b, true)];
  if (!first.ok || !second.ok) return false;
  const [x, y] = [first.address, second.address];
  if (x.port === 0 || x.port !== y.port) return false;
  const [hostX, hostY] = [x.host.toLowerCase(), y.host.toLowerCase()];
  return hostX === hostY || wildcards.has(hostX) || wildcards.has(hostY);
}

/** Listen addresses (inlets' `from` and `direct`) that overlap an earlier one: each refused where it is. */
function overlappingListeners(inlets: readonly InletPortal[]): Rule[] {
  const addresses: ListenAddress[] = [];
  for (const inlet of inlets) {
    const who = inlet.pointer === '/tcp-inlet' ? 'the inlet' : `inlet "${inlet.name}"`;
    addresses.push({ what: who, pointer: `${inlet.pointer}/from`, text: inlet.from });
    if (inlet.direct !== false)
      addresses.push({ what: `the direct path of ${who}`, pointer: `${inlet.pointer}/direct`, text: inlet.direct });
  }
  const rules: Rule[] = [];
  addresses.forEach((later, index) => {
    const earlier = addresses.slice(0, index).find((other) => listenAddressesOverlap(other.text, later.text));
    if (!earlier) return;
    const why =
      earlier.text.toLowerCase() === later.text.toLowerCase()
        ? `${earlier.what} listens there too`
        : `${isWildcard(later.text) ? later.text : earlier.text} takes that port on every address, and ` +
          `${earlier.what} listens on ${earlier.text}`;
    rules.push({
      pointer: later.pointer,
      message: `${later.what} cannot listen on ${later.text}: ${why}; give one of them another port`,
    });
  });
  return rules;
}

function isWildcard(address: string): boolean {
  const parsed = parseHostPort(address, true);
  return parsed.ok && wildcards.has(parsed.address.host.toLowerCase());
}

/**
 * Two inlets with the direct path on that go via one relay name: outlets tell a node's direct paths
 * apart by relay name, so only one of them could be dialled.
 */
function sharedDirectPaths(inlets: readonly InletPortal[]): Rule[] {
  const byVia = new Map<string, string>();
  const rules: Rule[] = [];
  for (const inlet of inlets) {
    if (inlet.direct === false) continue;
    const first = byVia.get(inlet.via);
    if (first === undefined) byVia.set(inlet.via, inlet.name);
    else
      rules.push({
        pointer: `${inlet.pointer}/via`,
        message:
          `inlets "${first}" and "${inlet.name}" both reach the relay name "${inlet.via}" with the direct path on, ` +
          "and outlets tell a node's direct paths apart by relay name; set direct: false on one of them",
      });
  }
  return rules;
}

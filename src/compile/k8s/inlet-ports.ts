/**
 * The ports an inlet node serves, as the pod and its Service name them. The configuration decides where
 * the node listens; the Service must open exactly those ports, on an address the Service reaches (not
 * loopback, which only the pod itself can dial). A port name is the portal's when Kubernetes takes it
 * (IANA_SVC_NAME: at most 15 lower-case letters, digits and single inner dashes, with a letter),
 * otherwise `tcp-<port>`, so a long portal name never makes an object the API server refuses. Pure.
 */
import { isLoopbackHost, parseHostPort } from '../../shared/address.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';

export interface NamedPort {
  readonly name: string;
  readonly port: number;
}

const serviceName = /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;

/** Whether Kubernetes takes `name` as a port name. */
export const isPortName = (name: string): boolean => serviceName.test(name);

/** Every address the configuration's inlets listen on (tcp-inlet and tcp-inlets alike). */
export function inletListenAddresses(config: NodeConfig): string[] {
  const named = Object.values(config['tcp-inlets'] ?? {}).map((inlet) => inlet.from);
  return [...(config['tcp-inlet'] ? [config['tcp-inlet'].from] : []), ...named];
}

/**
 * The ports as the pod and the Service name them, sorted by port. Throws when they do not match where
 * the configuration listens: the compiler built the two from one manifest, so a difference is its bug.
 */
export function podPorts(config: NodeConfig, ports: readonly NamedPort[]): NamedPort[] {
  const listening = inletListenAddresses(config).map((from) => {
    const parsed = parseHostPort(from);
    if (!parsed.ok) throw new Error(`inlet address ${from}: expected address:port, but ${parsed.reason}`);
    if (isLoopbackHost(parsed.address.host))
      throw new Error(`inlet address ${from} is loopback: a Service reaches only an inlet on 0.0.0.0`);
    return parsed.address.port;
  });
  const given = ports.map((entry) => entry.port);
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((port, index) => port === b[index]);
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
  if (new Set(given).size !== given.length || !same(sorted(listening), sorted(given)))
    throw new Error(`inlet ports ${given.join(', ')} differ from the ports it listens on, ${listening.join(', ')}`);
  const named = [...ports]
    .sort((a, b) => a.port - b.port)
    .map(({ name, port }) => ({ name: isPortName(name) ? name : `tcp-${port}`, port }));
  // Two portals named tcp-15432 and the like: only the port numbers are sure to differ.
  const names = named.map((entry) => entry.name);
  return new Set(names).size === names.length ? named : named.map(({ port }) => ({ name: `tcp-${port}`, port }));
}

/**
 * The node configurations of spec 2.2, built as typed objects: the outlet's, the stack inlet's and the
 * container inlet's. A single portal keeps the single forms (relay and tcp-outlet, tcp-inlet); several
 * portals take tcp-outlets and tcp-inlets, by portal name, with relay and via written only where they
 * differ from the name. Keys appear only when they carry a value (tls only when true).
 */
import { product } from '../shared/product.ts';
import type {
  NamedTcpInletConfig,
  NamedTcpOutletConfig,
  NodeConfig,
  TcpInletConfig,
} from '../shared/types/node-config.ts';
import { stackListenAddress } from './defaults.ts';
import type { Portal, UseCase } from './model.ts';

export function outletConfig(useCase: UseCase): NodeConfig {
  const base = { 'http-server-port': useCase.statusPort };
  const target = (portal: Portal) => ({
    to: portal.outlet.to,
    allow: portal.outlet.allow,
    ...(portal.outlet.tls ? { tls: true } : {}),
  });
  if (!useCase.listed) {
    const portal = useCase.portals[0] as Portal;
    return { ...base, relay: portal.outlet.relay, 'tcp-outlet': target(portal) };
  }
  const outlets: Record<string, NamedTcpOutletConfig> = {};
  for (const portal of useCase.portals) {
    outlets[portal.name] = {
      ...(portal.outlet.relay === portal.name ? {} : { relay: portal.outlet.relay }),
      ...target(portal),
    };
  }
  return { ...base, 'tcp-outlets': outlets };
}

/**
 * The status port of outlet replica `replica` (from 1) where the replicas share a machine's network
 * (the compose file): each on the next port, the first on the use case's own.
 */
export const outletStatusPort = (statusPort: number, replica: number): number => statusPort + replica - 1;

/** The outlet configuration of compose replica `replica`: the same portals, its own status port. */
export function outletReplicaConfig(useCase: UseCase, replica: number): NodeConfig {
  return { ...outletConfig(useCase), 'http-server-port': outletStatusPort(useCase.statusPort, replica) };
}

type Direct = TcpInletConfig['direct'];

function tcpInlet(portal: Portal, listenAddress: string, direct: Direct): TcpInletConfig {
  return {
    from: `${listenAddress}:${portal.inlet.port}`,
    via: portal.inlet.via,
    allow: portal.inlet.allow,
    ...(portal.inlet.tls ? { tls: true } : {}),
    direct,
  };
}

function inletConfig(useCase: UseCase, listenAddress: string, direct: (index: number) => Direct): NodeConfig {
  const base = { 'http-server-port': useCase.statusPort };
  if (!useCase.listed) {
    return { ...base, 'tcp-inlet': tcpInlet(useCase.portals[0] as Portal, listenAddress, direct(0)) };
  }
  const inlets: Record<string, NamedTcpInletConfig> = {};
  for (const [index, portal] of useCase.portals.entries()) {
    const { via, ...inlet } = tcpInlet(portal, listenAddress, direct(index));
    inlets[portal.name] = { ...inlet, ...(via === portal.name ? {} : { via }) };
  }
  return { ...base, 'tcp-inlets': inlets };
}

/**
 * The port of the stack inlet's direct path for the portal at `index`: the first at the product's
 * fixed port, each further one on the next, so that every inlet of a node has a listener of its own
 * and one security group rule can name them all.
 */
export const directPortAt = (index: number): number => product.directPort + index;

/** Where a stack inlet's direct path listens: every interface, on the port its OutletCidr rule opens. */
export const stackDirectAddress = `${stackListenAddress}:${product.directPort}`;

/**
 * The inlet of the cloud stack: listens on every interface of its machine. Its direct path is always
 * on, at a fixed port; the stack's security group lets outlets reach it only from the network its
 * OutletCidr parameter names, and otherwise the outlet's dial fails fast and the relay carries.
 */
export function stackInletConfig(useCase: UseCase): NodeConfig {
  return inletConfig(useCase, stackListenAddress, (index) => `${stackListenAddress}:${directPortAt(index)}`);
}

/**
 * The inlet as a process on a machine of the user's (inlet.json: systemd, a terminal): no wider than
 * asked. Its clients are on this machine (127.0.0.1) and so is the outlet its direct path serves
 * (`true`: loopback, a port the system chooses); the guide says how to widen each, for clients and an
 * outlet elsewhere. A machine has no security group in front of it that opens nothing by default, as
 * the stack's has, so the file itself opens nothing to other machines.
 */
export function hostInletConfig(useCase: UseCase): NodeConfig {
  return inletConfig(useCase, hostListenAddress, () => true);
}

/** Where a host inlet listens: loopback. */
export const hostListenAddress = '127.0.0.1';

/**
 * The inlet of the container (spec 2.5). It carries no ticket: the ticket reaches the node through
 * the container's environment, never its command line, which any user of the host can read in ps.
 * Its direct path is off: the addresses a container sees are rarely the ones an outlet can reach, and
 * a container should open no port on its host unasked. The guide says how to turn it on.
 */
export function containerInletConfig(useCase: UseCase): NodeConfig {
  return inletConfig(useCase, containerListenAddress(useCase), () => false);
}

/**
 * The inlet of the Kubernetes target: listens on every interface of its pod, which its Service reaches.
 * Its direct path is off: a pod's address is not one an outlet elsewhere can dial, and the Service opens
 * the portals' ports only; the relay carries.
 */
export function kubernetesInletConfig(useCase: UseCase): NodeConfig {
  return inletConfig(useCase, stackListenAddress, () => false);
}

/** The container inlet's listen address: as given, else every interface on a bridge, loopback on the host. */
export function containerListenAddress(useCase: UseCase): string {
  const container = useCase.container ?? {};
  return container.listen ?? (container['network-mode'] === 'bridge' ? '0.0.0.0' : '127.0.0.1');
}

/** The ports a node configuration's inlets listen on for the direct path (host:port values, not 0). */
export function directPortsOf(config: NodeConfig): number[] {
  const inlets = [config['tcp-inlet'], ...Object.values(config['tcp-inlets'] ?? {})];
  return inlets.flatMap((inlet) => {
    const direct = inlet?.direct;
    if (typeof direct !== 'string') return [];
    const port = Number(direct.slice(direct.lastIndexOf(':') + 1));
    return Number.isInteger(port) && port > 0 ? [port] : [];
  });
}

/**
 * The node configurations of spec 2.2, built as typed objects: the outlet's, the stack inlet's and the
 * container inlet's. Keys appear only when they carry a value (tls only when true).
 */
import { product } from '../shared/product.ts';
import type { NodeConfig, TcpInletConfig } from '../shared/types/node-config.ts';
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { stackListenAddress } from './defaults.ts';

export function outletConfig(manifest: UseCaseManifest): NodeConfig {
  const { outlet } = manifest;
  return {
    'http-server-port': manifest['status-port'],
    relay: outlet.relay,
    'tcp-outlet': { to: outlet.to, allow: outlet.allow, ...(outlet.tls ? { tls: true } : {}) },
  };
}

function tcpInlet(manifest: UseCaseManifest, listenAddress: string, direct: TcpInletConfig['direct']): TcpInletConfig {
  const { inlet } = manifest;
  return {
    from: `${listenAddress}:${inlet.port}`,
    via: inlet.via,
    allow: inlet.allow,
    ...(inlet.tls ? { tls: true } : {}),
    direct,
  };
}

/** Where a stack inlet's direct path listens: every interface, on the port its OutletCidr rule opens. */
export const stackDirectAddress = `${stackListenAddress}:${product.directPort}`;

/**
 * The inlet of the cloud stack: listens on every interface of its machine. Its direct path is always
 * on, at a fixed port; the stack's security group lets outlets reach it only from the network its
 * OutletCidr parameter names, and otherwise the outlet's dial fails fast and the relay carries.
 */
export function stackInletConfig(manifest: UseCaseManifest): NodeConfig {
  return {
    'http-server-port': manifest['status-port'],
    'tcp-inlet': tcpInlet(manifest, stackListenAddress, stackDirectAddress),
  };
}

/**
 * The inlet of the container (spec 2.5). It carries no ticket: the ticket reaches the node through
 * the container's environment, never its command line, which any user of the host can read in ps.
 * Its direct path is off: the addresses a container sees are rarely the ones an outlet can reach, and
 * a container should open no port on its host unasked. The guide says how to turn it on.
 */
export function containerInletConfig(manifest: UseCaseManifest): NodeConfig {
  const listen = manifest.container?.listen ?? '127.0.0.1';
  return {
    'http-server-port': manifest['status-port'],
    'tcp-inlet': tcpInlet(manifest, listen, false),
  };
}

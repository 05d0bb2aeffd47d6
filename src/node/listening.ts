/** The line a node logs at start naming every address it listens on. */
import type { AddressInfo } from 'node:net';

export interface Listening {
  readonly nodeId: string;
  /** The inlet's listener, for its clients. */
  readonly inlet: AddressInfo | undefined;
  /** The inlet's direct-path listener, for outlets (host:port). */
  readonly direct: string | undefined;
  /** The status server's port, on 127.0.0.1. */
  readonly status: number;
}

export function listeningLine(listening: Listening): string {
  const { nodeId, inlet, direct, status } = listening;
  const addresses = [
    ...(inlet ? [`${hostPort(inlet.address, inlet.port)} (inlet clients)`] : []),
    ...(direct ? [`${direct} (direct path, for outlets)`] : []),
    `127.0.0.1:${status} (status: /show, /metrics)`,
  ];
  return `node ${nodeId} listens on ${addresses.join(', ')}`;
}

const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

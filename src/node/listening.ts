/** The line a node logs at start naming every address it listens on. */
import type { AddressInfo } from 'node:net';
import { isNamed } from './portals.ts';

export interface InletListening {
  readonly portal: { readonly name: string; readonly pointer: string };
  /** Its listener, for its clients. */
  readonly clients: AddressInfo | undefined;
  /** Its direct-path listener, for outlets (host:port). */
  readonly direct: string | undefined;
}

export interface Listening {
  readonly nodeId: string;
  readonly inlets: readonly InletListening[];
  /** The status server's port, on 127.0.0.1. */
  readonly status: number;
}

export function listeningLine(listening: Listening): string {
  const { nodeId, inlets, status } = listening;
  const addresses = [
    ...inlets.flatMap(({ portal, clients, direct }) => {
      const named = isNamed(portal);
      const who = named ? `clients of inlet ${portal.name}` : 'inlet clients';
      return [
        ...(clients ? [`${hostPort(clients.address, clients.port)} (${who})`] : []),
        ...(direct ? [`${direct} (direct path${named ? ` of inlet ${portal.name}` : ''}, for outlets)`] : []),
      ];
    }),
    `127.0.0.1:${status} (status: /show, /healthz, /readyz, /metrics)`,
  ];
  return `node ${nodeId} listens on ${addresses.join(', ')}`;
}

const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

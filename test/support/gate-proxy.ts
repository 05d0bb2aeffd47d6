/**
 * A TCP forwarder in front of a server whose new connections can be held back for a while: a relay a
 * node reaches a moment later than another, in a fixed order instead of by chance. Connections already
 * forwarded are never held.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface GateProxy {
  readonly port: number;
  /** Where connections go; set before the first one arrives. */
  target: { host: string; port: number } | undefined;
  /** New connections wait (accepted, not forwarded) until `release`. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

function abort(socket: Socket): void {
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

export async function startGateProxy(): Promise<GateProxy> {
  const sockets = new Set<Socket>();
  let held: Socket[] | undefined;
  const forward = (client: Socket) => {
    if (client.destroyed) return;
    const target = proxy.target;
    if (!target) return client.destroy();
    const upstream = connect({ ...target, allowHalfOpen: true, noDelay: true });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      // An abort on one side is passed on as one.
      from.on('error', () => abort(to));
      from.once('close', () => sockets.delete(from));
    }
  };
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    client.on('error', () => client.destroy());
    if (held) held.push(client);
    else forward(client);
  });
  const proxy: GateProxy = {
    port: 0,
    target: undefined,
    hold() {
      held ??= [];
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const client of waiting) forward(client);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of [...sockets, ...(held ?? [])]) socket.destroy();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (proxy as { port: number }).port = (server.address() as AddressInfo).port;
  return proxy;
}

/** A TCP target for tests of several portals: which target a client reached is in the first bytes it reads. */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface NamedTarget {
  readonly port: number;
  close(): Promise<void>;
}

/** A target that says its name first, then echoes: which target a client reached is in its first bytes. */
export async function namedTarget(name: string): Promise<NamedTarget> {
  const sockets = new Set<Socket>();
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.write(`${name}:`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

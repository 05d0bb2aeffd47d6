/**
 * Many clients at once through an inlet, for the outlet's memory: clients that read nothing of a large
 * answer (slower than the target, as a client on a slow link is), a target that sends that answer,
 * and a burst of echo clients that all hold their connections until every one has its echo.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** A target that answers every connection with `bytes` at once (one buffer, shared by all). */
export async function startAnswerServer(
  bytes: number,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const answer = Buffer.alloc(bytes, 0x61);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.write(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * `count` clients that each send a byte, take the first chunk of the answer and then read nothing:
 * resolves once every one has its first chunk, with the function that closes them all.
 */
export async function slowReaders(port: number, count: number): Promise<() => void> {
  const sockets: Socket[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect({ port, host: '127.0.0.1' });
          sockets.push(socket);
          socket.once('error', reject);
          socket.once('data', () => {
            socket.pause();
            resolve();
          });
          socket.write('x');
        }),
    ),
  );
  return () => sockets.forEach((socket) => socket.destroy());
}

export interface BurstResult {
  /** Clients whose whole echo came back. */
  readonly whole: number;
  /** The others, by what they saw. */
  readonly failed: Readonly<Record<string, number>>;
}

/**
 * `clients` echo clients through `port`, each sending `bytes` and reading them back, opened `wave` at a
 * time (each wave once the last has its first echoed bytes, so no listen queue overflows); each holds
 * its connection until every client has its echo, so all are open together, then all close.
 */
export async function clientBurst(port: number, clients: number, bytes: number, wave = 100): Promise<BurstResult> {
  const payload = Buffer.alloc(bytes, 0x5a);
  const failed: Record<string, number> = {};
  const sockets: Socket[] = [];
  const echoed: Promise<boolean>[] = [];
  const client = (firstBytes: () => void) =>
    new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      sockets.push(socket);
      let got = 0;
      const fail = (kind: string) => {
        firstBytes();
        failed[kind] = (failed[kind] ?? 0) + 1;
        resolve(false);
      };
      socket.on('data', (chunk: Buffer) => {
        if (got === 0) firstBytes();
        got += chunk.length;
        if (got === bytes) resolve(true);
      });
      socket.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      socket.on('end', () => {
        if (got !== bytes) fail('short');
      });
      socket.write(payload);
    });
  for (let opened = 0; opened < clients; opened += wave) {
    const size = Math.min(wave, clients - opened);
    await Promise.all(Array.from({ length: size }, () => new Promise<void>((first) => echoed.push(client(first)))));
  }
  const results = await Promise.all(echoed);
  for (const socket of sockets) socket.end();
  await Promise.all(
    sockets.map((socket) =>
      socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once('close', resolve)),
    ),
  );
  return { whole: results.filter(Boolean).length, failed };
}

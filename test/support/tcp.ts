/** Small real TCP peers for data-path tests: an echo server, and a client that sends and collects. */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export async function startEchoServer(): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
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

export interface StoreEchoServer {
  readonly server: Server;
  readonly port: number;
  /** How many whole requests are answered together (the first ones wait for the last). */
  together: number;
  close(): Promise<void>;
}

/**
 * An echo server that answers a request only once it has read the whole of it (to the client's
 * half-close), and with `together` above 1, only once that many requests are whole: every client has
 * sent everything before a byte comes back, so what its socket says at the end is about the answer.
 * Requests shorter than `togetherFrom` bytes are answered at once.
 */
export async function startStoreEchoServer(together = 1, togetherFrom = 0): Promise<StoreEchoServer> {
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const chunks: Buffer[] = [];
    let length = 0;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
    });
    socket.once('end', () => {
      // Written back as they came, not concatenated: a copy of every answer into fresh memory cost this
      // process more than all else it did (test/e2e/data-plane-truncation.test.ts stores 640 MiB).
      const answer = () => {
        socket.cork();
        for (const chunk of chunks) socket.write(chunk);
        socket.end();
        socket.uncork();
      };
      if (length < togetherFrom) return answer();
      waiting.push(answer);
      if (waiting.length >= echo.together) for (const next of waiting.splice(0)) next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const echo: StoreEchoServer = {
    server,
    port: (server.address() as AddressInfo).port,
    together,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return echo;
}

/** Connects, writes `payload`, half-closes, and resolves with everything read until the peer ends. */
export function roundTrip(port: number, payload: Buffer, host = '127.0.0.1'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      socket.end();
      resolve(Buffer.concat(chunks));
    });
    socket.once('connect', () => socket.end(payload));
  });
}

/** Resolves when the connection is closed by the peer without data (a clean refusal). */
export function expectRefusal(port: number, host = '127.0.0.1'): Promise<{ bytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve({ bytes }) : reject(error),
    );
    socket.once('close', () => resolve({ bytes }));
  });
}

/** Whether something accepts TCP connections on host:port right now. */
export function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * `size` random bytes in pieces of a MiB: one random MiB again and again, each copy numbered in its
 * first 4 bytes (so that no piece passes for another), rather than `size` bytes made at once, since
 * fresh memory is what costs here (about 4.5 ms a MiB on the test machines).
 */
function* numberedPieces(size: number, piece = 1 << 20): Generator<Buffer> {
  const random = randomBytes(piece);
  for (let offset = 0, number = 0; offset < size; offset += piece, number += 1) {
    const next = Buffer.from(random.subarray(0, Math.min(piece, size - offset)));
    next.writeUInt32BE(number, 0);
    yield next;
  }
}

/**
 * Sends `size` random bytes (numberedPieces) on `socket` once it is connected, as fast as it takes them,
 * then ends it; resolves with the sha256 (hex) of what was sent, hashed as it went. Await it together
 * with the reading side (Promise.all), so that a failure of either is reported.
 */
export async function sendPieces(socket: Socket, size: number): Promise<string> {
  if (socket.connecting) await once(socket, 'connect');
  const sent = createHash('sha256');
  for (const piece of numberedPieces(size)) {
    sent.update(piece);
    if (!socket.write(piece)) await once(socket, 'drain');
  }
  socket.end();
  return sent.digest('hex');
}

/**
 * Sends `size` random bytes (sendPieces) to the echo server or portal on `port` and reads the echo to
 * its end: the sha256 of what was sent and of what came back, each hashed as it passed, not kept.
 */
export async function echoDigests(
  port: number,
  size: number,
): Promise<{ sent: string; received: string; bytes: number }> {
  const received = createHash('sha256');
  let bytes = 0;
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  socket.on('data', (chunk: Buffer) => {
    received.update(chunk);
    bytes += chunk.length;
  });
  const ended = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('end', () => resolve());
  });
  try {
    const [sent] = await Promise.all([sendPieces(socket, size), ended]);
    return { sent, received: received.digest('hex'), bytes };
  } finally {
    socket.destroy();
  }
}

/**
 * Loopback peers for the multiplexer's tests: servers and clients on port 0, the two ends of a link,
 * and a raw peer that reads and writes frames through the codec (src/wire/protocol/mux-frame.ts).
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Socket, connect, createServer, type AddressInfo, type Server } from 'node:net';
import {
  FrameType,
  decodeHeader,
  encodeFrame,
  encodeWindow,
  frameHeaderSize,
  type AdvertisedWindow,
} from '../../src/wire/protocol/mux-frame.ts';
import { muxDefaults } from '../../src/wire/mux.ts';

/** Every server and socket the helpers open, closed by `closeAll`. */
const opened: (Server | Socket)[] = [];

export function track<T extends Server | Socket>(item: T): T {
  opened.push(item);
  return item;
}

/** A server on a loopback port; every socket it accepts is closed by `closeAll`. */
export async function listen(onSocket: (socket: Socket) => void): Promise<number> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    opened.push(socket);
    socket.on('error', () => socket.destroy());
    onSocket(socket);
  });
  opened.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

export function dial(port: number): Socket {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  socket.on('error', () => socket.destroy());
  opened.push(socket);
  return socket;
}

export function closeAll(): void {
  for (const item of opened.splice(0)) {
    if (item instanceof Socket) item.destroy();
    else item.close();
  }
}

/** Two ends of one loopback connection: the link a session runs on. */
export async function linked(): Promise<[Socket, Socket]> {
  let accepted!: (socket: Socket) => void;
  const serverEnd = new Promise<Socket>((resolve) => (accepted = resolve));
  const port = await listen((socket) => accepted(socket));
  const clientEnd = dial(port);
  await once(clientEnd, 'connect');
  return [clientEnd, await serverEnd];
}

/** Resolves once the far side reset `socket`; a clean end (what a client would take for a whole stream) fails. */
export function resetByPeer(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('end', () => reject(new Error('a clean end where a reset was due')));
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
  });
}

export function readAll(socket: Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return once(socket, 'end').then(() => Buffer.concat(chunks));
}

/** Frames as a raw peer sees them. */
export function onFrames(socket: Socket, handle: (type: number, id: number, body: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= frameHeaderSize) {
      const { type, id, length } = decodeHeader(pending);
      if (pending.length < frameHeaderSize + length) break;
      handle(type, id, pending.subarray(frameHeaderSize, frameHeaderSize + length));
      pending = pending.subarray(frameHeaderSize + length);
    }
  });
}

/** The window the defaults advertise. */
export const defaultWindow: AdvertisedWindow = { initial: muxDefaults.initialWindow, most: muxDefaults.maxWindow };

export const openFrame = (id: number, window = defaultWindow) => encodeFrame(FrameType.open, id, encodeWindow(window));
export const acceptFrame = (id: number, window = defaultWindow) =>
  encodeFrame(FrameType.accept, id, encodeWindow(window));

/** The names of frame types, for readable assertions. */
export const frameName = (type: number): string =>
  Object.entries(FrameType).find(([, value]) => value === type)?.[0] ?? String(type);

/** Counts what a socket hands the kernel: each call is one system call (and, on TLS, one record). */
export function countWrites(socket: Socket): () => number {
  let writes = 0;
  for (const method of ['_write', '_writev']) {
    const original = Reflect.get(socket, method) as (...args: unknown[]) => void;
    Reflect.set(socket, method, (...args: unknown[]) => {
      writes += 1;
      original.apply(socket, args);
    });
  }
  return () => writes;
}

export const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export const turn = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/** The code of the go-away `socket` receives before its end (undefined when none came). */
export function goAwayOf(socket: Socket): Promise<number | undefined> {
  let code: number | undefined;
  onFrames(socket, (type, _id, body) => {
    if (type === FrameType.goAway) code = body.readUInt32BE(0);
  });
  return new Promise((resolve) => {
    socket.once('end', () => resolve(code));
    socket.once('close', () => resolve(code));
  });
}

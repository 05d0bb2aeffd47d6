/**
 * A large transfer through a portal to an echo server while something else happens (a reload): the
 * client's bytes are on the way for the whole time, everything echoed is kept to be compared by sha256,
 * and how the connection ended (cleanly, or the code of a reset) is recorded.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { until } from './in-process.ts';

export const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');

export interface EchoClient {
  readonly socket: Socket;
  readonly received: Buffer[];
  bytes(): number;
  /** 'end' for a clean end, otherwise the error's code (ECONNRESET). */
  readonly ended: Promise<string>;
}

/** Writes `data` in 1 MiB pieces, as fast as the connection takes them. */
export async function writeAll(socket: Socket, data: Buffer): Promise<void> {
  for (let offset = 0; offset < data.length; offset += 1 << 20) {
    if (!socket.write(data.subarray(offset, offset + (1 << 20)))) await once(socket, 'drain');
  }
}

/** A client connection whose echo is collected whole, and whose end (clean or a reset) is recorded. */
export function echoClient(port: number): EchoClient {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  const received: Buffer[] = [];
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    bytes += chunk.length;
  });
  const ended = new Promise<string>((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    socket.once('end', () => resolve('end'));
  });
  return { socket, received, bytes: () => bytes, ended };
}

export interface TransferDuring<T> {
  /** What `action` resolved with. */
  readonly result: T;
  /** Bytes echoed when `action` started (the first quarter) and when it resolved. */
  readonly echoedBefore: number;
  readonly echoedByThen: number;
}

/**
 * Sends all of `payload` through `client` (connected) while `action` runs: the first quarter is echoed
 * before `action` starts; the rest is paced, so bytes are on the way the whole time it runs, and the
 * last MiB waits for its answer. The client is not ended: the caller does, then reads `client.ended`.
 */
export async function transferDuring<T>(
  client: EchoClient,
  payload: Buffer,
  action: () => Promise<T>,
): Promise<TransferDuring<T>> {
  const quarter = payload.length / 4;
  client.socket.write(payload.subarray(0, quarter));
  await until(() => (client.bytes() >= quarter ? true : undefined), 'the first quarter echoed', 20_000);
  const echoedBefore = client.bytes();
  let answered = false;
  const acting = action().finally(() => (answered = true));
  let sent = quarter;
  while (!answered && sent < payload.length - (1 << 20)) {
    if (!client.socket.write(payload.subarray(sent, sent + (1 << 18)))) await once(client.socket, 'drain');
    sent += 1 << 18;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const result = await acting;
  const echoedByThen = client.bytes();
  await writeAll(client.socket, payload.subarray(sent));
  return { result, echoedBefore, echoedByThen };
}

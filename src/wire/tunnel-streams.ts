/**
 * Client connections as HTTP/2 CONNECT streams. Each direction is piped with backpressure, a half-close
 * travels as END_STREAM, and a reset or a vanished peer closes the other side instead of leaving it
 * hanging.
 */
import { constants, type ClientHttp2Session, type ClientHttp2Stream, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { pump } from './pump.ts';

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = constants;

/** Joins a local socket and a stream both ways; resolves when both are closed. */
export function joinSocketAndStream(socket: Socket, stream: ClientHttp2Stream | ServerHttp2Stream): Promise<void> {
  socket.setNoDelay(true);
  pump(socket, stream);
  pump(stream, socket);
  socket.on('error', () => socket.destroy());
  stream.on('error', () => stream.destroy());
  const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const streamClosed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  socket.once('close', () => {
    if (!stream.closed) stream.close(NGHTTP2_CANCEL);
  });
  stream.once('close', () => {
    if (stream.rstCode !== undefined && stream.rstCode !== NGHTTP2_NO_ERROR) socket.destroy();
    else if (!socket.writableEnded) socket.end();
  });
  return Promise.all([socketClosed, streamClosed]).then(() => undefined);
}

/**
 * Joins two sockets both ways for a warm stream: a half-close passes through (the other side's end),
 * and an error on either side destroys both.
 */
export function joinSockets(a: Socket, b: Socket): Promise<void> {
  pump(a, b);
  pump(b, a);
  const closed = (socket: Socket) =>
    new Promise<void>((resolve) =>
      socket.once('close', (hadError: boolean) => {
        if (hadError) {
          a.destroy();
          b.destroy();
        }
        resolve();
      }),
    );
  for (const socket of [a, b]) socket.on('error', () => socket.destroy());
  // A side that closed cleanly has sent its end through the pipe; the other closes when its own peer
  // ends. Destroying it here could drop bytes still queued for the kernel.
  return Promise.all([closed(a), closed(b)]).then(() => undefined);
}

export interface Tunnel {
  readonly stream: ClientHttp2Stream;
  /** Settles with the outlet's answer: resolved on 200 (its target is connected), rejected otherwise. */
  readonly answered: Promise<void>;
}

/**
 * Opens a CONNECT stream and hands it over at once, before the outlet answers, so that a client's first
 * bytes travel right behind the request instead of a round trip later; the outlet holds them until its
 * target is connected. A refusal (or no answer within `timeoutMs`) rejects `answered` and cancels the
 * stream.
 */
export function openTunnel(session: ClientHttp2Session, timeoutMs: number): Tunnel {
  const stream = session.request({ ':method': 'CONNECT', ':authority': 'portal.target:1' }, { endStream: false });
  const answered = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`the outlet did not answer within ${timeoutMs} ms`)), timeoutMs);
    const onClose = () => fail(new Error(`the outlet closed the stream (${stream.rstCode})`));
    function settle() {
      clearTimeout(timer);
      stream.off('error', fail);
      stream.off('close', onClose);
    }
    function fail(error: Error) {
      settle();
      if (!stream.closed) stream.close(NGHTTP2_CANCEL);
      reject(error);
    }
    stream.on('error', fail);
    stream.once('close', onClose);
    stream.once('response', (headers) => {
      const status = Number(headers[':status']);
      if (status === 200) {
        settle();
        resolve();
      } else {
        fail(new Error(status === 502 ? 'the outlet cannot reach its target' : `the outlet answered ${status}`));
      }
    });
  });
  return { stream, answered };
}

/**
 * Pings the session every `intervalMs`; a ping unanswered within `timeoutMs` means the peer (or the
 * path to it) is gone: `onLost` runs (to close the peer's warm streams too) and the session is
 * destroyed so that its streams and their sockets close.
 */
export function keepAlive(session: Http2Session, intervalMs: number, timeoutMs: number, onLost: () => void = () => undefined): void {
  const lost = (error: Error) => {
    onLost();
    session.destroy(error);
  };
  const timer = setInterval(() => {
    if (session.destroyed || session.closed) return;
    const deadline = setTimeout(() => lost(new Error('heartbeat lost')), timeoutMs);
    const sent = session.ping((error) => {
      clearTimeout(deadline);
      if (error) lost(error);
    });
    if (!sent) clearTimeout(deadline);
  }, intervalMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}

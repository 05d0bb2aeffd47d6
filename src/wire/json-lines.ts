/**
 * Newline-delimited JSON over a byte stream, with a bound on line length so that garbage or a hostile
 * peer cannot make a reader buffer without limit.
 */
import type { Duplex } from 'node:stream';
import { RuntimeFailure } from '../shared/errors.ts';
import { queuedBytesPerPeer } from './limits.ts';

export const maxLineBytes = 256 * 1024;

/**
 * Calls `onMessage` for each JSON line until it returns `false`; calls `onError` once for a line that
 * is too long or not JSON, and stops. The returned function detaches the reader and gives every byte
 * it has not consumed back to the stream (paused), so another protocol can take over.
 */
export function readJsonLines(
  stream: Duplex,
  onMessage: (message: unknown) => boolean | void,
  onError: (error: RuntimeFailure) => void,
): () => void {
  return lineReader(stream, onMessage, onError, () => true).release;
}

interface LineReader {
  /** Detaches and hands unread bytes back to the stream. */
  readonly release: () => void;
  /** Reads on after `ready` turned true again. */
  readonly wake: () => void;
}

/**
 * The reader behind both functions: while `ready()` is false it hands over nothing and keeps the
 * stream paused, so a peer that sends faster than it is served fills its own buffers, not ours.
 */
function lineReader(
  stream: Duplex,
  onMessage: (message: unknown) => boolean | void,
  onError: (error: RuntimeFailure) => void,
  ready: () => boolean,
): LineReader {
  let buffered: Buffer = Buffer.alloc(0);
  let stopped = false;
  const detach = () => {
    if (stopped) return;
    stopped = true;
    stream.off('data', onData);
  };
  const fail = (error: RuntimeFailure) => {
    detach();
    onError(error);
  };
  const handOver = () => {
    let newline: number;
    while (!stopped && ready() && (newline = buffered.indexOf(0x0a)) >= 0) {
      const line = buffered.subarray(0, newline).toString('utf8');
      buffered = buffered.subarray(newline + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        fail(new RuntimeFailure('JSON_LINE_INVALID', 'the peer sent something that is not a JSON line'));
        return;
      }
      if (onMessage(message) === false) {
        // Stop the flow at once: a stream left flowing without a 'data' listener drops what follows.
        stream.pause();
        detach();
        return;
      }
    }
    if (stopped) return;
    if (buffered.length > maxLineBytes && buffered.indexOf(0x0a) < 0) {
      fail(new RuntimeFailure('JSON_LINE_TOO_LONG', `the peer sent a line longer than ${maxLineBytes} bytes`));
      return;
    }
    if (ready()) stream.resume();
    else stream.pause();
  };
  const onData = (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    handOver();
  };
  stream.on('data', onData);
  // A stream an earlier reader paused stays paused when a 'data' listener is added.
  handOver();
  return {
    release: () => {
      detach();
      stream.pause();
      if (buffered.length > 0) stream.unshift(buffered);
      buffered = Buffer.alloc(0);
    },
    wake: () => {
      if (!stopped) handOver();
    },
  };
}

export interface ServeJsonLinesOptions {
  /** Requests being answered at once; the next line is not read until one is done. */
  readonly maxInFlight: number;
  /**
   * Bytes of answers and pushed messages that may wait for a peer that does not read. Reading stops
   * as soon as the socket asks for a drain; past this bound (pushed messages keep coming) the
   * connection is closed. @default queuedBytesPerPeer
   */
  readonly maxQueuedBytes?: number;
}

export interface JsonLinesService {
  /** Sends a message that answers no request (a pushed event). */
  send(message: unknown): void;
}

/**
 * Serves requests arriving as JSON lines: `handle` answers each (undefined: no answer). Reading stops
 * while `maxInFlight` requests are being answered or while the peer does not read what it was sent,
 * so a peer that floods requests and never reads the answers costs a bounded amount of memory.
 */
export function serveJsonLines(
  stream: Duplex,
  handle: (message: unknown) => Promise<unknown>,
  onError: (error: RuntimeFailure) => void,
  options: ServeJsonLinesOptions,
): JsonLinesService {
  const maxQueuedBytes = options.maxQueuedBytes ?? queuedBytesPerPeer;
  let inFlight = 0;
  const send = (message: unknown) => {
    if (stream.destroyed) return;
    writeJsonLine(stream, message);
    if (stream.writableLength > maxQueuedBytes)
      stream.destroy(new RuntimeFailure('PEER_NOT_READING', `the peer left more than ${maxQueuedBytes} bytes unread`));
  };
  const reader = lineReader(
    stream,
    (message) => {
      inFlight += 1;
      handle(message).then(
        (answer) => {
          inFlight -= 1;
          if (answer !== undefined) send(answer);
          reader.wake();
        },
        (error: Error) => {
          inFlight -= 1;
          stream.destroy(error);
        },
      );
    },
    onError,
    () => inFlight < options.maxInFlight && !stream.writableNeedDrain,
  );
  stream.on('drain', () => reader.wake());
  return { send };
}

/** Reads exactly one JSON line, leaving every later byte unread (and the stream paused); 0 waits without limit. */
export function readOneJsonLine(stream: Duplex, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: RuntimeFailure | undefined, message?: unknown) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      stream.off('close', onClose);
      stream.off('end', onClose);
      release();
      if (error) reject(error);
      else resolve(message);
    };
    const onClose = () => finish(new RuntimeFailure('ANSWER_MISSING', 'the connection closed before an answer'));
    const timer =
      timeoutMs > 0
        ? setTimeout(() => finish(new RuntimeFailure('ANSWER_MISSING', `no answer within ${timeoutMs} ms`)), timeoutMs)
        : undefined;
    stream.once('close', onClose);
    stream.once('end', onClose);
    const release = readJsonLines(
      stream,
      (message) => {
        queueMicrotask(() => finish(undefined, message));
        return false;
      },
      (error) => finish(error),
    );
  });
}

export function writeJsonLine(stream: Duplex, message: unknown): boolean {
  return stream.write(`${JSON.stringify(message)}\n`);
}

/**
 * Newline-delimited JSON over a byte stream, with a bound on line length so that garbage or a hostile
 * peer cannot make a reader buffer without limit.
 */
import type { Duplex } from 'node:stream';

export const maxLineBytes = 256 * 1024;

/**
 * Calls `onMessage` for each JSON line until it returns `false`; calls `onError` once for a line that
 * is too long or not JSON, and stops. The returned function detaches the reader and gives every byte
 * it has not consumed back to the stream (paused), so another protocol can take over.
 */
export function readJsonLines(
  stream: Duplex,
  onMessage: (message: unknown) => boolean | void,
  onError: (error: Error) => void,
): () => void {
  let buffered: Buffer = Buffer.alloc(0);
  let stopped = false;
  const detach = () => {
    if (stopped) return;
    stopped = true;
    stream.off('data', onData);
  };
  const onData = (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    let newline: number;
    while (!stopped && (newline = buffered.indexOf(0x0a)) >= 0) {
      const line = buffered.subarray(0, newline).toString('utf8');
      buffered = buffered.subarray(newline + 1);
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        detach();
        onError(new Error('the peer sent something that is not a JSON line'));
        return;
      }
      if (onMessage(message) === false) {
        // Stop the flow at once: a stream left flowing without a 'data' listener drops what follows.
        stream.pause();
        detach();
      }
    }
    if (!stopped && buffered.length > maxLineBytes) {
      detach();
      onError(new Error(`the peer sent a line longer than ${maxLineBytes} bytes`));
    }
  };
  stream.on('data', onData);
  // A stream an earlier reader paused stays paused when a 'data' listener is added.
  stream.resume();
  return () => {
    detach();
    stream.pause();
    if (buffered.length > 0) stream.unshift(buffered);
    buffered = Buffer.alloc(0);
  };
}

/** Reads exactly one JSON line, leaving every later byte unread (and the stream paused); 0 waits without limit. */
export function readOneJsonLine(stream: Duplex, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, message?: unknown) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      stream.off('close', onClose);
      stream.off('end', onClose);
      release();
      if (error) reject(error);
      else resolve(message);
    };
    const onClose = () => finish(new Error('the connection closed before an answer'));
    const timer = timeoutMs > 0 ? setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs) : undefined;
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

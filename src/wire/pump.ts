/**
 * Moves bytes from one socket to another like `pipe`, with one difference that matters on a fast path:
 * what arrives within one turn of the event loop in full TLS records leaves in one write. A TLS socket hands over its
 * plaintext one 16 KiB record at a time; written one by one, with Nagle off, every record would be its
 * own system call and its own TCP segment. Backpressure is the same as `pipe`'s: the source pauses
 * while the destination's buffer is full.
 */
import type { Duplex } from 'node:stream';

/** The size of a full TLS record's plaintext: chunks this large are gathered within one turn. */
const coalesceFrom = 16 * 1024;

export function pump(from: Duplex, to: Duplex): void {
  let corked = false;
  const flush = () => {
    corked = false;
    if (!to.destroyed) to.uncork();
  };
  const onData = (chunk: Buffer) => {
    // A full TLS record is likely one of several read at once: hold it for the rest. A smaller chunk
    // is most likely a whole message (a query, an answer): it leaves at once, with no added turn.
    if (!corked && chunk.length >= coalesceFrom) {
      corked = true;
      to.cork();
      setImmediate(flush);
    }
    if (!to.write(chunk)) from.pause();
  };
  const onDrain = () => from.resume();
  const onEnd = () => {
    if (corked) flush();
    to.end();
  };
  const detach = () => {
    from.off('data', onData);
    from.off('end', onEnd);
    to.off('drain', onDrain);
  };
  from.on('data', onData);
  // A source may have ended before it was handed over (its reader paused it too late to hold the end).
  if (from.readableEnded) process.nextTick(onEnd);
  else from.once('end', onEnd);
  to.on('drain', onDrain);
  from.once('close', detach);
  to.once('close', detach);
  from.resume();
}

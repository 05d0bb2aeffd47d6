/**
 * The bytes of a session's streams, both ways, within their windows. A sender has at most its window
 * unacknowledged; a receiver acknowledges (`credit`) only what its socket has handed to the kernel, so
 * a slow reader stalls its own stream and nothing else. Windows start small and grow only while a
 * stream's bytes leave, within a bound per session: what a session buffers is its streams' starting
 * windows and that bound.
 */
import { encodeCredit, frameLimits, FrameType } from '../protocol/mux-frame.ts';
import type { FrameWriter } from './frame-writer.ts';
import type { MuxSettings } from './options.ts';
import type { Stream } from './stream.ts';
import { acknowledges, endedHere } from './stream-state.ts';

/** Data pieces this large (a full TLS record) are gathered with the others of their turn. */
const coalesceFrom = 16 * 1024;

export class Flow {
  /** Sockets paused because the link's buffer is full; resumed on its drain. */
  private readonly waitingForLink = new Set<Stream>();
  /** How much this side has grown its streams' windows beyond their start, in all. */
  private grown = 0;

  constructor(
    private readonly writer: FrameWriter,
    private readonly settings: MuxSettings,
    /** A stream whose held bytes have all gone after its socket ended: its end is due. */
    private readonly drained: (stream: Stream) => void,
  ) {}

  /** The link took what it held: the sockets it paused read on. */
  linkDrained(): void {
    for (const stream of this.waitingForLink) if (!stream.held) stream.socket.resume();
    this.waitingForLink.clear();
  }

  /** A stream that leaves the session: its growth is the session's again. */
  forget(stream: Stream): void {
    this.grown -= stream.grown;
    stream.grown = 0;
    this.waitingForLink.delete(stream);
  }

  stop(): void {
    this.waitingForLink.clear();
  }

  /** What the stream's socket read: sent within the credit; the rest is held, and the socket paused. */
  fromSocket(stream: Stream, chunk: Buffer): void {
    if (stream.credit >= chunk.length) {
      stream.credit -= chunk.length;
      this.sendData(stream, chunk);
      return;
    }
    if (stream.credit > 0) {
      this.sendData(stream, chunk.subarray(0, stream.credit));
      chunk = chunk.subarray(stream.credit);
      stream.credit = 0;
    }
    stream.held = chunk;
    stream.socket.pause();
  }

  /**
   * Credit from the peer: held bytes go, and the socket reads on. A problem when it would take the
   * credit beyond the largest window the peer advertised.
   */
  credited(stream: Stream, amount: number): string | undefined {
    if (stream.credit + amount > stream.creditLimit) return `credit beyond the window on stream ${stream.id}`;
    stream.credit += amount;
    const { held } = stream;
    if (!held) return undefined;
    const now = Math.min(held.length, stream.credit);
    stream.credit -= now;
    this.sendData(stream, now === held.length ? held : held.subarray(0, now));
    stream.held = now === held.length ? undefined : held.subarray(now);
    if (stream.held) return undefined;
    if (endedHere(stream.state)) this.drained(stream);
    else if (!this.waitingForLink.has(stream)) stream.socket.resume();
    return undefined;
  }

  /** Bytes from the peer for the stream's socket; a problem when they go beyond its window. */
  received(stream: Stream, piece: Buffer): string | undefined {
    stream.uncredited += piece.length;
    if (stream.uncredited > stream.window) return `stream ${stream.id} sent beyond its window`;
    const { length } = piece;
    // A full TLS record's worth is likely one of several read at once: the stream's socket is corked
    // until the end of this turn, so they leave in one system call (as src/wire/pump.ts does).
    if (length >= coalesceFrom && !stream.corked) {
      stream.corked = true;
      stream.socket.cork();
      setImmediate(() => {
        stream.corked = false;
        if (!stream.socket.destroyed) stream.socket.uncork();
      });
    }
    stream.socket.write(piece, (error) => {
      if (error) return;
      stream.flushed += length;
      this.acknowledge(stream);
    });
    return undefined;
  }

  /**
   * Acknowledges what the socket has handed to the kernel, once a quarter of the window has gathered,
   * and grows the window (doubling, up to the most this side advertised, while the session's growth
   * allows): only a stream whose reader keeps up grows, so one that stalls holds its window and no
   * more, and the session holds at most its streams' starting windows and what it grew.
   */
  acknowledge(stream: Stream): void {
    if (!acknowledges(stream.state) || stream.flushed < stream.window / 4) return;
    const growth = Math.min(
      stream.window,
      this.settings.window.most - stream.window,
      this.settings.grownWindows - this.grown,
    );
    const grant = stream.flushed + growth;
    stream.window += growth;
    stream.grown += growth;
    this.grown += growth;
    stream.uncredited -= stream.flushed;
    stream.flushed = 0;
    this.writer.stream(stream, FrameType.credit, encodeCredit(grant));
  }

  private sendData(stream: Stream, body: Buffer): void {
    const most = frameLimits.dataBody;
    for (let offset = 0; offset < body.length; offset += most) {
      const piece = offset === 0 && body.length <= most ? body : body.subarray(offset, offset + most);
      if (!this.writer.stream(stream, FrameType.data, piece)) {
        stream.socket.pause();
        this.waitingForLink.add(stream);
      }
    }
  }
}

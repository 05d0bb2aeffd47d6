/**
 * The inlet's side of a multiplexed session as a patched member would drive it, over an end-to-end
 * socket past the verdicts: it opens streams one at a time (each would make the outlet dial its target),
 * answers the outlet's pings so the session is not ended for silence, and records when each stream was
 * opened and answered and when the session closed. Timestamps are `Date.now()`, so they compare with a
 * certificate's notAfter.
 */
import type { TLSSocket } from 'node:tls';
import { muxDefaults } from '../../src/wire/mux.ts';
import {
  FrameType,
  decodeHeader,
  decodeRefusal,
  encodeFrame,
  encodeWindow,
  frameHeaderSize,
} from '../../src/wire/protocol/mux-frame.ts';

export interface CraftedStream {
  readonly id: number;
  readonly openedAt: number;
  /** When the outlet answered: accepted (it dialled its target) or refused, with its reason. */
  answer?: { readonly at: number; readonly accepted: boolean; readonly reason?: string };
}

export class CraftedStreams {
  readonly streams: CraftedStream[] = [];
  /** When the session's socket closed, if it has. */
  closedAt: number | undefined;
  private nextId = 1;
  private pending = Buffer.alloc(0);
  private readonly window = encodeWindow({ initial: muxDefaults.initialWindow, most: muxDefaults.maxWindow });
  readonly closed: Promise<number>;

  constructor(private readonly socket: TLSSocket) {
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.closedAt = Date.now();
        resolve(this.closedAt);
      }),
    );
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    // A socket left paused by whoever read the verdict: the frames after it flow from here.
    socket.resume();
  }

  /** Opens one stream, as a client connection would; false once the session is gone. */
  open(): boolean {
    if (this.socket.destroyed) return false;
    const id = this.nextId;
    this.nextId += 1;
    this.streams.push({ id, openedAt: Date.now() });
    this.socket.write(encodeFrame(FrameType.open, id, this.window));
    return true;
  }

  /** Opens a stream every `everyMs` until `untilMs` (epoch) or the session closes. */
  async openEvery(everyMs: number, untilMs: number): Promise<void> {
    while (Date.now() < untilMs && this.open()) {
      await Promise.race([this.closed, new Promise((resolve) => setTimeout(resolve, everyMs))]);
    }
  }

  /** Streams the outlet accepted, of those opened at or after `fromMs` (epoch). */
  acceptedFrom(fromMs = 0): number {
    return this.streams.filter((stream) => stream.openedAt >= fromMs && stream.answer?.accepted).length;
  }

  refusals(): string[] {
    return [...new Set(this.streams.flatMap((stream) => (stream.answer?.reason ? [stream.answer.reason] : [])))];
  }

  destroy(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= frameHeaderSize) {
      const { type, id, length } = decodeHeader(this.pending);
      const end = frameHeaderSize + length;
      if (this.pending.length < end) return;
      const body = this.pending.subarray(frameHeaderSize, end);
      const stream = this.streams.find((candidate) => candidate.id === id);
      if (type === FrameType.ping) this.socket.write(encodeFrame(FrameType.pong, 0, Buffer.from(body)));
      if (type === FrameType.accept && stream) stream.answer = { at: Date.now(), accepted: true };
      if (type === FrameType.refuse && stream) {
        const refusal = decodeRefusal(body);
        stream.answer = {
          at: Date.now(),
          accepted: false,
          reason: typeof refusal === 'string' ? refusal : refusal.reason,
        };
      }
      this.pending = this.pending.subarray(end);
    }
  }
}

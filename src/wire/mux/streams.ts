/**
 * The streams of one session: each one's socket wired to the session, moved through its states
 * (stream-state.ts) by what the socket does and by the peer's frames, and its bytes carried by Flow.
 */
import type { Socket } from 'node:net';
import { resetSocket } from '../socket-reset.ts';
import {
  FrameType,
  RefusalCode,
  decodeCredit,
  decodeRefusal,
  decodeWindow,
  encodeRefusal,
  frameLimits,
  type MuxRole,
} from '../protocol/mux-frame.ts';
import { ClientLeft, SessionGoneAway, StreamRefused } from './errors.ts';
import { Flow } from './flow.ts';
import type { FrameWriter } from './frame-writer.ts';
import type { MuxSettings } from './options.ts';
import { Stream } from './stream.ts';
import { StreamState, farewellOf, isPeerEvent, isProblem, transition, type StreamEvent } from './stream-state.ts';

/** What the streams ask of their session. */
export interface StreamsHost {
  /** Whether the session takes no new streams: this side closed it, or it is over. */
  closed(): boolean;
  /** Whether the peer went away: it opens no more streams. */
  peerWentAway(): boolean;
  /** The peer broke the protocol: the session is to end. */
  violation(problem: string): void;
  /** This side failed: the session is to end. */
  failed(problem: string): void;
  /** The last stream left. */
  emptied(): void;
}

export class Streams {
  private readonly byId = new Map<number, Stream>();
  readonly flow: Flow;

  constructor(
    private readonly role: MuxRole,
    private readonly settings: MuxSettings,
    private readonly writer: FrameWriter,
    private readonly host: StreamsHost,
  ) {
    this.flow = new Flow(writer, settings, (stream) => this.drained(stream));
  }

  get size(): number {
    return this.byId.size;
  }

  /** The inlet's new stream for `socket`, announced soon (see FrameWriter.queueOpen). */
  open(id: number, socket: Socket): { stream: Stream; finished: Promise<void> } {
    const { openAllowance } = frameLimits;
    const window = this.settings.window.initial;
    const stream = new Stream(id, socket, StreamState.unannounced, openAllowance, openAllowance, window);
    this.byId.set(id, stream);
    this.writer.queueOpen(stream);
    return { stream, finished: this.join(stream) };
  }

  /** Ends every stream with the session: `why` is the refusal of those still waiting for an answer. */
  endAll(why: string): void {
    for (const stream of [...this.byId.values()]) {
      this.byId.delete(stream.id);
      // Cut short: the client (or target) hears a reset, never an end that looks like the whole stream.
      // One that ended both ways closes by itself once its last bytes are out.
      const ended = stream.state === StreamState.closed && !stream.held;
      stream.state = StreamState.gone;
      settle(stream, () => new SessionGoneAway(why));
      if (!ended) cutShort(stream.socket);
    }
    this.flow.stop();
  }

  /** The outlet's side of an `open`: the stream goes to the session's handler, or is refused. */
  opened(id: number, body: Buffer): void {
    const window = decodeWindow(FrameType.open, body);
    if (typeof window === 'string') return this.host.violation(`stream ${id}: ${window}`);
    if (this.host.peerWentAway()) return this.host.violation(`stream ${id} opened after the go-away`);
    const { onStream, maxStreams } = this.settings;
    const closing = this.host.closed();
    if (closing || !onStream || this.byId.size >= maxStreams) {
      const reason = closing
        ? 'the outlet is closing the session'
        : 'the outlet carries too many connections on this session';
      return this.refuse(id, closing ? RefusalCode.goingAway : RefusalCode.refused, reason);
    }
    let stream: Stream | undefined;
    onStream({
      attach: (socket) => {
        stream = new Stream(id, socket, StreamState.connecting, window.initial, window.most, frameLimits.openAllowance);
        this.byId.set(id, stream);
        return this.join(stream);
      },
      refuse: (reason, code = RefusalCode.refused) => {
        // Once a socket is attached, its close refuses the stream.
        if (stream) return;
        this.refuse(id, code, reason);
      },
      accept: () => {
        if (!stream || stream.state === StreamState.gone) return;
        const before = stream.state;
        const next = this.step(stream, 'accept');
        // Accepted already: nothing more to do.
        if (next === undefined || next === before) return;
        // The accept advertises this side's window; it counts what the inlet sent before it.
        stream.window = this.settings.window.initial;
        stream.socket.resume();
        this.writer.holdAccept(stream);
        this.flow.acknowledge(stream);
      },
    });
  }

  /** A frame of the peer's on stream `id` (anything but an open, or data). */
  frame(type: FrameType, id: number, body: Buffer): void {
    const stream = this.byId.get(id);
    // Frames for a stream that is gone (reset or refused meanwhile) are dropped.
    if (!stream) return;
    switch (type) {
      case FrameType.accept: {
        const window = decodeWindow(FrameType.accept, body);
        if (typeof window === 'string') return this.host.violation(`stream ${id}: ${window}`);
        if (!this.step(stream, 'peerAccept')) return;
        stream.creditLimit = window.most;
        settle(stream);
        // The credit of the window advertised, beyond what the inlet could send before the answer.
        return this.credited(stream, window.initial - frameLimits.openAllowance);
      }
      case FrameType.refuse: {
        const refusal = decodeRefusal(body);
        if (typeof refusal === 'string') return this.host.violation(`stream ${id}: ${refusal}`);
        if (!this.step(stream, 'peerRefuse')) return;
        const reason = refusal.reason || 'the outlet refused the connection';
        settle(stream, () =>
          refusal.code === RefusalCode.goingAway ? new SessionGoneAway(reason) : new StreamRefused(reason),
        );
        this.remove(stream);
        return cutShort(stream.socket);
      }
      case FrameType.end:
        if (this.step(stream, 'peerEnd')) stream.socket.end();
        return;
      case FrameType.reset:
        if (!this.step(stream, 'peerReset')) return;
        this.remove(stream);
        settle(stream, () => new StreamRefused('the outlet closed the connection'));
        return cutShort(stream.socket);
      case FrameType.credit:
        if (this.step(stream, 'peerCredit')) this.credited(stream, decodeCredit(body));
        return;
    }
  }

  /** A piece of a data frame of the peer's on stream `id`. */
  data(id: number, piece: Buffer): void {
    const stream = this.byId.get(id);
    // Bytes for a stream that is gone (reset meanwhile) are dropped.
    if (!stream || !this.step(stream, 'peerData') || piece.length === 0) return;
    const problem = this.flow.received(stream, piece);
    if (problem !== undefined) this.host.violation(problem);
  }

  private credited(stream: Stream, amount: number): void {
    const problem = this.flow.credited(stream, amount);
    if (problem !== undefined) this.host.violation(problem);
  }

  /** Moves `stream` on `event` to its next state; undefined (the session failing) when the event may not happen now. */
  private step(stream: Stream, event: StreamEvent): StreamState | undefined {
    const next = transition(stream.state, event);
    if (!isProblem(next)) {
      stream.state = next;
      return next;
    }
    const problem = `stream ${stream.id}: ${next.problem}`;
    if (isPeerEvent(event)) this.host.violation(problem);
    else this.host.failed(problem);
    return undefined;
  }

  /** Wires a stream's socket to the session both ways; settles once the socket has closed. */
  private join(stream: Stream): Promise<void> {
    const { socket } = stream;
    socket.setNoDelay(true);
    // The outlet reads its target only once it accepted it: nothing of the target's goes before the accept.
    if (this.role === 'outlet') socket.pause();
    socket.on('data', (chunk: Buffer) => this.flow.fromSocket(stream, chunk));
    socket.once('end', () => this.socketEnded(stream));
    socket.on('error', () => socket.destroy());
    const finished = new Promise<void>((resolve) => {
      if (socket.destroyed) {
        // Gone before it was handed over: the peer hears of it at once.
        process.nextTick(() => {
          this.dropStream(stream, true);
          resolve();
        });
        return;
      }
      socket.once('close', (hadError: boolean) => {
        this.dropStream(stream, hadError);
        resolve();
      });
    });
    // A client that half-closed while it waited for a session ended before it was handed over.
    if (socket.readableEnded) process.nextTick(() => this.socketEnded(stream));
    if (this.role === 'inlet') socket.resume();
    return finished;
  }

  /** The stream's socket ended its side: the end goes now, or after the bytes the window holds. */
  private socketEnded(stream: Stream): void {
    if (stream.state === StreamState.gone) return;
    // The end may not reach the outlet before the open.
    if (stream.state === StreamState.unannounced) this.writer.announce(stream.id);
    if (this.step(stream, 'socketEnded') && !stream.held) this.writer.stream(stream, FrameType.end);
  }

  /** The bytes held after the socket's end have all gone: the end follows them. */
  private drained(stream: Stream): void {
    this.writer.stream(stream, FrameType.end);
    if (this.step(stream, 'drained') === StreamState.gone) this.remove(stream);
  }

  /**
   * A stream whose socket closed: the peer hears of it unless it heard both ends already. Bytes the
   * window still held after a clean end go first, then the end; the stream is removed after them.
   */
  private dropStream(stream: Stream, hadError: boolean): void {
    if (stream.state === StreamState.gone) return;
    const holding = stream.held !== undefined;
    const farewell = farewellOf(stream.state, holding);
    // A clean close with bytes held leaves the stream draining.
    if (this.step(stream, !hadError && holding ? 'socketClosedHolding' : 'socketClosed') !== StreamState.gone) return;
    // The answer leaves before the stream is removed: a closing session (a warm stream's) ends its
    // link with its last stream, and a frame written after that end would never reach the inlet.
    if (farewell === 'refuse') this.refuse(stream.id, RefusalCode.refused, 'the outlet cannot reach its target');
    // A target that went away after it connected: the inlet hears of the accept before the reset.
    else if (farewell === 'reset') this.writer.stream(stream, FrameType.reset);
    this.remove(stream);
    settle(stream, () => new ClientLeft('the connection closed before the outlet answered'));
  }

  /** The one way a stream leaves the session; a closing session ends with its last stream. */
  private remove(stream: Stream): void {
    stream.state = StreamState.gone;
    if (this.byId.get(stream.id) !== stream) return;
    // Gone at the peer's word (its reset) or after its last frame: an accept would tell it nothing.
    this.writer.discardAccept(stream);
    this.flow.forget(stream);
    this.byId.delete(stream.id);
    if (this.byId.size === 0) this.host.emptied();
  }

  /** The outlet refuses stream `id`; a peer that reads none of its answers has its session closed. */
  private refuse(id: number, code: RefusalCode, reason: string): void {
    if (!this.writer.answer(FrameType.refuse, id, encodeRefusal(code, reason)))
      this.host.violation('it reads none of the answers to what it sends');
  }
}

/**
 * Cuts a stream's socket short with a reset; but a socket whose end (the peer's, passed on) is still
 * being written is destroyed: Node.js 20 never completes a reset that overtakes a pending shutdown,
 * and the socket's handle then stays open for good (the process cannot even exit). Its FIN is true of
 * that direction; the destroy closes the other.
 */
function cutShort(socket: Socket): void {
  if (socket.writableEnded && !socket.writableFinished) socket.destroy();
  else resetSocket(socket);
}

/**
 * Settles the inlet's wait for the outlet's answer; `why` makes the refusal (an Error is costly: only
 * when one waits).
 */
function settle(stream: Stream, why?: () => Error): void {
  const { answer } = stream;
  if (!answer) return;
  stream.answer = undefined;
  clearTimeout(answer.timer);
  if (why) answer.reject(why());
  else answer.resolve();
}

/**
 * One end of a session: the I/O of the multiplexer. It reads frames from its link (FrameReader), moves
 * each stream through its states (stream-state.ts), carries the bytes within their windows (Flow) and
 * writes frames in the order the protocol asks (FrameWriter); the wire contract itself is
 * src/wire/protocol/mux-frame.ts. A violation of the peer's ends the session with a go-away that says
 * so, as does a failure of this side's own.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { resetSocket } from '../socket-reset.ts';
import { FrameType, GoAwayCode, checkHeader, decodeGoAway, frameLimits, type MuxRole } from '../protocol/mux-frame.ts';
import { SessionClosed, SessionGoneAway, SessionInternalError, SessionProtocolError, StreamRefused } from './errors.ts';
import { FrameReader } from './frame-reader.ts';
import { FrameWriter } from './frame-writer.ts';
import { muxDefaults, settingsOf, type MuxOptions, type MuxSettings } from './options.ts';
import { Pings } from './pings.ts';
import { Streams } from './streams.ts';

/** How long a closing session's link, ended cleanly, waits for the peer's close before it is destroyed. */
const closingLinkMs = 10_000;
/** How long a link ended after a go-away with an error waits for the peer's close (a flooder reads nothing). */
const goAwayLingerMs = 2000;
/**
 * The least time between two `credential` frames this side sends: half again the peer's bound, since a
 * frame held up on the way (behind a full window of data) arrives closer to the next.
 */
const credentialPacingMs = frameLimits.credentialIntervalMs * 1.5;

/**
 * One end of a session. It emits 'close' once, when the session is over, with why (SessionClosed,
 * SessionProtocolError, SessionInternalError, or the error given to destroy()); and 'goaway' with the
 * code of the peer's go-away, after which it opens no more streams.
 */
export class MuxSession extends EventEmitter {
  private readonly streams: Streams;
  private nextId = 1;
  private lastOpened = 0;
  private closing = false;
  /** A go-away was sent while streams are still taken (notice). */
  private noticeGiven = false;
  private ended = false;
  private peerGoAway: GoAwayCode | undefined;
  private readonly pings = new Pings(muxDefaults.outstandingPings);
  /** When the peer's last `credential` frame arrived: more than one a second is a flood. */
  private lastCredentialAt = Number.NEGATIVE_INFINITY;
  /** When this side last sent one, and the certificate that waits for the peer's interval to pass. */
  private credentialSentAt = Number.NEGATIVE_INFINITY;
  private credentialWaiting: { certificate: Buffer; readonly timer: NodeJS.Timeout } | undefined;
  /** When the peer was last heard from, by any frame: a heartbeat's proof of life (src/wire/tunnel-streams.ts). */
  lastHeardAt = Date.now();
  private readonly settings: MuxSettings;
  private readonly writer: FrameWriter;
  private readonly reader: FrameReader;

  constructor(
    private readonly link: Socket,
    private readonly role: MuxRole,
    options: MuxOptions = {},
  ) {
    super();
    this.settings = settingsOf(role, options);
    this.writer = new FrameWriter(link, this.settings.window);
    this.streams = new Streams(role, this.settings, this.writer, {
      closed: () => this.closed,
      peerWentAway: () => this.peerGoAway !== undefined,
      violation: (problem) => this.fail(new SessionProtocolError(problem)),
      failed: (problem) => this.fail(new SessionInternalError(problem)),
      emptied: () => {
        if (this.closing) this.endLink();
      },
    });
    this.reader = new FrameReader({
      reading: () => !this.ended,
      checkHeader: (header) => checkHeader(header, role, role === 'inlet' ? this.nextId - 1 : this.lastOpened),
      data: (id, piece) => this.streams.data(id, piece),
      control: (type, id, body) => this.onControl(type, id, body),
    });
    link.setNoDelay(true);
    link.on('data', (chunk: Buffer) => this.read(chunk));
    link.on('drain', () => {
      if (this.writer.drained()) this.streams.flow.linkDrained();
    });
    // A session ends with its connection: no half-open link.
    link.once('end', () => this.destroy());
    link.on('error', (error) => this.destroy(new SessionClosed(error.message, undefined, error)));
    link.once('close', () => this.finish(this.closeReason()));
    link.resume();
  }

  get destroyed(): boolean {
    return this.ended;
  }

  /** Whether this side takes no new streams (closing, or gone). */
  get closed(): boolean {
    return this.closing || this.ended;
  }

  /** The code of the peer's go-away, once it sent one: no stream opens on the session after it. */
  get peerWentAway(): GoAwayCode | undefined {
    return this.peerGoAway;
  }

  get size(): number {
    return this.streams.size;
  }

  /**
   * The inlet's side: carries `socket` on a new stream at once, before the outlet answers; `answered`
   * settles with the answer (rejected with StreamRefused on a refusal, or no answer within
   * `timeoutMs`; SessionGoneAway when the session takes no new streams), `finished` once the socket
   * has closed.
   */
  open(socket: Socket, timeoutMs: number): { answered: Promise<void>; finished: Promise<void> } {
    if (this.role !== 'inlet') throw new SessionInternalError('only the inlet opens streams');
    const refusal = this.closed
      ? new SessionGoneAway('the session is closing')
      : this.peerGoAway !== undefined
        ? new SessionGoneAway('the outlet is closing the session')
        : this.streams.size >= this.settings.maxStreams
          ? new StreamRefused('too many connections on one session')
          : undefined;
    if (refusal) {
      resetSocket(socket);
      return { answered: Promise.reject(refusal), finished: Promise.resolve() };
    }
    const id = this.nextId;
    this.nextId += 1;
    const { stream, finished } = this.streams.open(id, socket);
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        stream.answer = undefined;
        reject(new StreamRefused(`the outlet did not answer within ${timeoutMs} ms`));
        resetSocket(socket);
      }, timeoutMs);
      stream.answer = { resolve, reject, timer };
    });
    // Stream ids only grow: a session that used them all takes no more (this stream is its last), and
    // the inlet opens another.
    if (this.nextId > frameLimits.streamId) this.close();
    return { answered, finished };
  }

  /** Pings the peer; `callback` hears its answer (or the session's end, as an answer). */
  ping(callback: (error: Error | null) => void): boolean {
    if (this.ended) return false;
    const payload = this.pings.add(callback);
    if (!payload) return false;
    this.writer.write(FrameType.ping, 0, payload);
    return true;
  }

  /**
   * Sends this side's renewed certificate (DER): only to a peer that speaks end-to-end protocol 6 or
   * later (src/wire/protocol/mux-frame.ts), which the caller knows from the verdicts.
   */
  sendCredential(certificate: Buffer): boolean {
    if (this.ended || certificate.length < 1 || certificate.length > frameLimits.credentialBody) return false;
    // The peer ends a session whose credentials come less than its interval apart (onCredential), and a
    // node may renew twice within one (a reload, then a grant): one renewed that soon waits its turn,
    // and of several that waited only the latest is sent.
    if (this.credentialWaiting) {
      this.credentialWaiting.certificate = certificate;
      return true;
    }
    const waitMs = this.credentialSentAt + credentialPacingMs - Date.now();
    if (waitMs <= 0) {
      this.writeCredential(certificate);
      return true;
    }
    const timer = setTimeout(() => {
      const waiting = this.credentialWaiting;
      this.credentialWaiting = undefined;
      if (waiting && !this.ended) this.writeCredential(waiting.certificate);
    }, waitMs);
    timer.unref();
    this.credentialWaiting = { certificate, timer };
    return true;
  }

  private writeCredential(certificate: Buffer): void {
    this.credentialSentAt = Date.now();
    this.writer.write(FrameType.credential, 0, certificate);
  }

  /**
   * Tells the peer that this side is going away (a go-away) while still taking the streams it opened
   * before it heard: the outlet's first step of a drain, so that nothing in flight is refused.
   */
  notice(): void {
    if (this.ended || this.closing || this.noticeGiven || this.peerGoAway !== undefined) return;
    this.noticeGiven = true;
    // Sent on the next turn of the event loop (as close() sends it): a ping written after that turn
    // follows it.
    this.writer.goAway(GoAwayCode.normal);
  }

  /** Takes no new streams (the peer hears of it), and ends the session once the last one is over. */
  close(): void {
    if (this.ended) return;
    if (!this.closing && !this.noticeGiven && this.peerGoAway === undefined) this.writer.goAway(GoAwayCode.normal);
    this.closing = true;
    if (this.streams.size === 0) this.endLink();
  }

  /** Ends the session now; every stream's socket is destroyed (with `error`, when given). */
  destroy(error?: Error): void {
    this.link.destroy();
    this.finish(error ?? this.closeReason());
  }

  private closeReason(): SessionClosed {
    return this.peerGoAway === undefined
      ? new SessionClosed('the session closed')
      : SessionClosed.byPeer(this.peerGoAway);
  }

  /**
   * A closing session whose last stream is over ends its link cleanly: the frames still queued (the
   * last bytes, the ends) leave before the FIN, which a destroy would drop. The peer closes its side
   * on that FIN; one that does not is cut off after a while.
   */
  private endLink(lingerMs = closingLinkMs): void {
    if (this.link.writableEnded || this.link.destroyed) return;
    this.writer.flush();
    this.link.end();
    setTimeout(() => this.destroy(), lingerMs).unref();
  }

  /** Ends the session for a violation of the peer's, or a failure of this side's, with a go-away that says which. */
  private fail(error: SessionProtocolError | SessionInternalError): void {
    if (this.ended) return;
    const code = error instanceof SessionProtocolError ? GoAwayCode.protocolError : GoAwayCode.internalError;
    this.writer.goAway(code);
    this.endLink(goAwayLingerMs);
    this.finish(error);
  }

  private finish(reason: Error): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.credentialWaiting?.timer);
    this.credentialWaiting = undefined;
    this.writer.stop();
    this.streams.endAll(reason.message);
    // Pending pings are answered, not failed: a session's end is for its 'close' listeners to handle.
    this.pings.answerAll();
    this.emit('close', reason);
  }

  private read(chunk: Buffer): void {
    this.lastHeardAt = Date.now();
    let problem: string | undefined;
    try {
      problem = this.reader.read(chunk);
    } catch (error) {
      // A handler that threw (the node's onStream): the session fails, the process goes on.
      this.fail(new SessionInternalError((error as Error).message, error));
      return;
    }
    if (problem !== undefined) this.fail(new SessionProtocolError(problem));
  }

  private onControl(type: FrameType, id: number, body: Buffer): void {
    switch (type) {
      case FrameType.ping:
        // The opens of streams begun before the ping leave before its pong (rather than with their
        // first bytes): a draining outlet takes the pong for proof that nothing more was opened.
        this.writer.announce(Number.MAX_SAFE_INTEGER);
        // A copy: a slice would keep the whole chunk it was read in.
        if (!this.writer.answer(FrameType.pong, 0, Buffer.from(body)))
          this.fail(new SessionProtocolError('it reads none of the answers to what it sends'));
        return;
      case FrameType.pong: {
        const callback = this.pings.answered(body);
        if (callback) callback(null);
        else this.fail(new SessionProtocolError('a pong that answers no ping'));
        return;
      }
      case FrameType.goAway:
        this.onGoAway(body);
        return;
      case FrameType.credential:
        this.onCredential(body);
        return;
      case FrameType.open:
        this.lastOpened = id;
        this.streams.opened(id, body);
        return;
      default:
        this.streams.frame(type, id, body);
    }
  }

  /** The peer's renewed certificate: checked by the node (onCredential), at most one a second. */
  private onCredential(body: Buffer): void {
    const now = Date.now();
    if (now - this.lastCredentialAt < frameLimits.credentialIntervalMs) {
      this.fail(new SessionProtocolError('more than one credential a second'));
      return;
    }
    this.lastCredentialAt = now;
    // A copy: the body may be a slice of a larger chunk, and the node may keep what it is given.
    this.settings.onCredential?.(Buffer.from(body));
  }

  /**
   * The peer takes no new streams: none opens here any more (the node moves new clients to another
   * session on 'goaway'), and the streams carried finish. With an error, the peer is closing the session.
   */
  private onGoAway(body: Buffer): void {
    const code = decodeGoAway(body);
    if (typeof code === 'string') {
      this.fail(new SessionProtocolError(code));
      return;
    }
    this.peerGoAway = code;
    this.writer.cancelGoAway();
    this.emit('goaway', code);
    if (code !== GoAwayCode.normal) this.destroy(SessionClosed.byPeer(code));
  }
}

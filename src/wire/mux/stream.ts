/** One stream of a session: its socket, its state (src/wire/mux/stream-state.ts) and its windows. */
import type { Socket } from 'node:net';
import type { RefusalCode } from '../protocol/mux-frame.ts';
import type { StreamState } from './stream-state.ts';

export class Stream {
  /** Bytes received and not yet acknowledged (held here, or written to the socket and not yet flushed). */
  uncredited = 0;
  /** Of those, the bytes the socket has handed to the kernel: acknowledged once a quarter window gathers. */
  flushed = 0;
  /** How much this side grew the window beyond its start (the session bounds the sum). */
  grown = 0;
  /** The part of a chunk the window did not admit; its socket is paused until credit comes. */
  held: Buffer | undefined;
  /** The socket is corked until the end of this turn of the event loop (see Flow.received). */
  corked = false;
  /** The inlet's wait for the outlet's answer. */
  answer: { resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout } | undefined;

  constructor(
    readonly id: number,
    readonly socket: Socket,
    public state: StreamState,
    /** Bytes this side may still send. */
    public credit: number,
    /** The most credit the peer may have granted at once: the largest window it advertised. */
    public creditLimit: number,
    /** The window this side grants its peer: the most it may have sent and not yet seen acknowledged. */
    public window: number,
  ) {}
}

/** What the outlet does with a new stream: attach its target's socket (connecting), then accept it. */
export interface IncomingStream {
  /** The socket the stream's bytes go to and come from; writes before it connects wait in its buffer. */
  attach(socket: Socket): Promise<void>;
  /** The target is connected: the inlet's client may go on. */
  accept(): void;
  /**
   * Refuses the stream without attaching a socket (the outlet will not dial its target for it);
   * RefusalCode.goingAway tells the inlet to open it on another session. @default RefusalCode.refused
   */
  refuse(reason: string, code?: RefusalCode): void;
}

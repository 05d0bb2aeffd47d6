/**
 * What one end of a session is configured with, and the defaults. Windows are each receiver's own
 * choice, advertised to its peer in `open` and `accept` (src/wire/protocol/mux-frame.ts): retuning
 * one is a change of configuration, never of the protocol.
 */
import { InputError } from '../../shared/errors.ts';
import { frameLimits, type AdvertisedWindow, type MuxRole } from '../protocol/mux-frame.ts';
import type { IncomingStream } from './stream.ts';

export const muxDefaults = {
  /** Every stream's window at its start; a receiver grows it only as the stream's bytes leave for its socket. */
  initialWindow: 128 * 1024,
  /** The most one direction of a stream may have in flight: what a receiver grows a flowing stream's window to. */
  maxWindow: 4 * 1024 * 1024,
  /** How much a receiver grows the windows of one session's streams beyond their start, in all. */
  grownWindows: 128 * 1024 * 1024,
  /** Streams one session carries at once; more are refused. */
  streams: 65_536,
  /** Answers (pongs, refusals) the peer may leave unread before its session is closed as a flood. */
  unreadAnswers: 4096,
  /** Pings of this side's that may wait for their pongs at once; ping() sends no more meanwhile. */
  outstandingPings: 16,
} as const;

export interface MuxOptions {
  /** The outlet's handler of new streams. */
  readonly onStream?: (stream: IncomingStream) => void;
  /**
   * Takes the renewed certificate (DER) the peer sent in a `credential` frame (a copy, the session's
   * to give). None: the frame is read and has no effect, so the peer's connections still end with its
   * first certificate.
   */
  readonly onCredential?: (certificate: Buffer) => void;
  /** Streams carried at once. @default muxDefaults.streams */
  readonly maxStreams?: number;
  /** Window growth across the session's streams. @default muxDefaults.grownWindows */
  readonly grownWindows?: number;
  /**
   * The window this side grants its peer on each stream at the start. The outlet's is at least
   * frameLimits.openAllowance, which the inlet may send before the answer. @default muxDefaults.initialWindow
   */
  readonly initialWindow?: number;
  /** The most this side grows a stream's window to. @default muxDefaults.maxWindow */
  readonly maxWindow?: number;
}

/** The options a session runs with: every default filled in, and the window it advertises. */
export interface MuxSettings {
  readonly onStream: ((stream: IncomingStream) => void) | undefined;
  readonly onCredential: ((certificate: Buffer) => void) | undefined;
  readonly maxStreams: number;
  readonly grownWindows: number;
  readonly window: AdvertisedWindow;
}

export function settingsOf(role: MuxRole, options: MuxOptions): MuxSettings {
  const initial = options.initialWindow ?? muxDefaults.initialWindow;
  const most = options.maxWindow ?? Math.max(muxDefaults.maxWindow, initial);
  for (const [name, value] of [
    ['initialWindow', initial],
    ['maxWindow', most],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > frameLimits.window)
      throw new InputError('MUX_WINDOW_INVALID', `the session's ${name} is ${value}: not a window`, {
        hint: `give a whole number of bytes from 1 to ${frameLimits.window}`,
      });
  }
  if (most < initial)
    throw new InputError('MUX_WINDOW_INVALID', `the session's maxWindow (${most}) is below its initialWindow`, {
      hint: 'give a maxWindow at least as large as the initialWindow',
    });
  // The outlet's window counts the inlet's first bytes, sent before any answer.
  const start = role === 'outlet' ? Math.max(initial, frameLimits.openAllowance) : initial;
  return {
    onStream: options.onStream,
    onCredential: options.onCredential,
    maxStreams: options.maxStreams ?? muxDefaults.streams,
    grownWindows: options.grownWindows ?? muxDefaults.grownWindows,
    window: { initial: start, most: Math.max(most, start) },
  };
}

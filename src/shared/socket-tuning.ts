import type { NetConnectOpts } from 'node:net';
import type { ConnectionOptions } from 'node:tls';

/**
 * Stream buffer sizes on the data path. With the default 16 KiB, every 64 KiB read overflows the
 * writable side at once, so a pipe pauses and resumes for every chunk; 1 MiB lets whole reads through
 * while still bounding what one connection may buffer.
 */
export const dataPathHighWaterMark = 1024 * 1024;

/**
 * The stream buffer size of a socket whose bytes a session's stream carries (an outlet's target, an
 * inlet's client). The multiplexer writes to it within its window, whatever the buffer, and pauses it
 * when the window or the session's link is full; a paused socket reads on from the kernel until it
 * holds this much. At 1 MiB, 2,000 clients reading slower than the target left the outlet holding
 * 155 MB of the target's answers beyond every window; at this size a stalled stream holds at most a
 * read or two, and the rest waits in the kernel, where backpressure reaches the target.
 */
export const streamSocketHighWaterMark = 16 * 1024;

/** TLS 1.3 suites for the end-to-end session, AES-128-GCM first: the fastest with AES-NI. */
export const dataPathCipherSuites = 'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256';

/** Options of the socket that `net.connect`, `tls.connect` and `net.createServer` make. */
export interface SocketTuning {
  /** Keep reading after the peer's FIN, so that a half-close travels on as one. */
  readonly allowHalfOpen?: boolean;
  /** Send small writes at once (no Nagle). */
  readonly noDelay?: boolean;
  /** The stream buffer size of each direction. */
  readonly highWaterMark?: number;
}

/**
 * A data-path socket, dialled or accepted: half-open (a client's half-close travels as the end of its
 * stream), no Nagle (a request's last bytes do not wait for an acknowledgment) and 1 MiB buffers.
 * Also what `net.createServer` takes for the sockets it accepts.
 */
export const dataPathTuning = {
  allowHalfOpen: true,
  noDelay: true,
  highWaterMark: dataPathHighWaterMark,
} as const satisfies Required<SocketTuning>;

/**
 * A socket a session's stream carries, dialled or accepted: as dataPathTuning, but with small buffers
 * (streamSocketHighWaterMark), since the windows of the multiplexer, not the socket, bound what it holds.
 */
export const streamSocketTuning = {
  ...dataPathTuning,
  highWaterMark: streamSocketHighWaterMark,
} as const satisfies Required<SocketTuning>;

/**
 * `options` with `tuning` added: the one place they are given. The Socket constructor takes all three,
 * and `tls.connect` passes them on to the socket it makes; @types/node does not list them there
 * (highWaterMark for `net.connect`, none of them for `tls.connect`).
 */
export function withSocketTuning<T extends NetConnectOpts | ConnectionOptions>(
  options: T,
  tuning: SocketTuning,
): T & SocketTuning {
  return { ...options, ...tuning };
}

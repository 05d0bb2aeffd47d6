/**
 * The end-to-end session's multiplexer: each client connection is a stream of frames on the one TLS
 * connection between an inlet and an outlet. Only the inlet opens streams; the outlet answers each
 * with `accept` once its target is connected (or `refuse`), and the client's first bytes travel right
 * behind the `open`. A half-close travels as `end`, an abort as `reset`; each direction of a stream
 * has a window its receiver advertises and grows. The frames are src/wire/protocol/mux-frame.ts; the
 * session that reads and writes them is src/wire/mux/session.ts.
 *
 * Why not HTTP/2 CONNECT: the same semantics, at about half the CPU per new connection in Node.js (no
 * stream objects, no header compression), and a DATA body that makes up most of what TLS read reaches
 * the socket as a slice of it, not a copy.
 */
export { MuxSession } from './mux/session.ts';
export {
  ClientLeft,
  SessionClosed,
  SessionGoneAway,
  SessionInternalError,
  SessionProtocolError,
  StreamRefused,
} from './mux/errors.ts';
export { muxDefaults, type MuxOptions } from './mux/options.ts';
export type { IncomingStream } from './mux/stream.ts';
export { GoAwayCode, RefusalCode, goAwayNames, type MuxRole } from './protocol/mux-frame.ts';

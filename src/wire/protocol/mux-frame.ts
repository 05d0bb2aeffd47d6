/**
 * The frames of an end-to-end session (src/wire/mux.ts): the data plane's wire contract. Pure: bytes
 * in, values or a problem out; the session writes and reads frames only through these functions.
 *
 * Every frame is a 9-byte header and its body; numbers are unsigned and big-endian.
 *
 *   offset  size  field
 *   0       1     type
 *   1       4     stream id (0: the session itself)
 *   5       4     body length
 *
 *   type        stream id               body                                           length    sent by
 *   1 open      above every id opened   initial window u32, most window u32            8         inlet
 *   2 accept    an opened stream        initial window u32, most window u32            8         outlet
 *   3 refuse    an opened stream        refusal code u8, reason (UTF-8)                1 to 257  outlet
 *   4 data      an opened stream        the stream's bytes                             0 to 1 Mi both
 *   5 end       an opened stream        none                                           0         both
 *   6 reset     an opened stream        none                                           0         both
 *   7 credit    an opened stream        bytes granted u32                              4         both
 *   8 ping      0                       opaque payload, chosen by the sender           8         both
 *   9 pong      0                       the payload of the ping it answers             8         both
 *   10 go-away  0                       go-away code u32                               4         both
 *   11 credential 0                     the sender's renewed certificate (DER)         1 to 8 Ki both
 *
 * Rules the header does not show:
 * - Only the inlet opens streams, with ids that only grow. The outlet answers each open once, with
 *   `accept` or `refuse`, before any other frame of that stream (a `reset` may come at any time).
 * - Windows: each side grants the other a window per stream, in bytes sent and not yet acknowledged
 *   (`credit`), advertised by the receiver: the inlet's `open` for what the outlet sends, the outlet's
 *   `accept` for what the inlet sends. A receiver grows a window up to the most it advertised, never
 *   beyond; a sender never has more in flight than its window, and a credit that would take it beyond
 *   the most advertised is a violation, as bytes beyond the window are.
 * - The client's first bytes ride right behind `open`: before the answer, the inlet may send
 *   `openAllowance` bytes. The window in `accept` counts from the stream's first byte, so it
 *   includes them and is never below it.
 * - `go-away`: its sender takes no new streams on the session; the streams it carries finish. The
 *   outlet refuses the opens that cross it (refusal code `goingAway`); the inlet opens none after it.
 *   With an error code, the sender closes the session right after it.
 * - A ping's pong carries its payload back; a pong that answers no ping outstanding is a violation.
 * - `credential` (end-to-end protocol 6, negotiated in the verdicts: never sent to a peer of 5): after
 *   a renewal, each side sends its new certificate on each session. The receiver takes it only if it
 *   chains to the project CA, holds the same key and names the same member as the TLS peer
 *   certificate, is valid now, is not revoked and is still admitted by its allow; then the session (and
 *   every connection with that peer) lives until the new certificate's end instead of the old one's.
 *   One that fails any of these closes the session; more than one a second is a violation.
 * - A violation ends the session: `go-away` with `protocolError`, then the connection closes.
 */

/** The frame types; the number is the first byte of the header. */
export const FrameType = {
  open: 1,
  accept: 2,
  refuse: 3,
  data: 4,
  end: 5,
  reset: 6,
  credit: 7,
  ping: 8,
  pong: 9,
  goAway: 10,
  credential: 11,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

/** Why a session goes away: the body of a `go-away` frame. */
export const GoAwayCode = { normal: 0, protocolError: 1, internalError: 2 } as const;
export type GoAwayCode = (typeof GoAwayCode)[keyof typeof GoAwayCode];

const isGoAwayCode = (code: number): code is GoAwayCode => Object.values<number>(GoAwayCode).includes(code);

/** How a log names each go-away code. */
export const goAwayNames: Readonly<Record<GoAwayCode, string>> = {
  [GoAwayCode.normal]: 'normal',
  [GoAwayCode.protocolError]: 'protocol error',
  [GoAwayCode.internalError]: 'internal error',
};

/** Why the outlet refused a stream: the first byte of a `refuse` body. */
export const RefusalCode = {
  /** The outlet does not carry it: its target cannot be reached, or a bound is reached (the reason says). */
  refused: 0,
  /** The outlet takes no new streams on this session (it is closing it, or stopping): open on another. */
  goingAway: 1,
} as const;
export type RefusalCode = (typeof RefusalCode)[keyof typeof RefusalCode];

export const frameHeaderSize = 9;

/** What the contract bounds, whatever either side is configured with. */
export const frameLimits = {
  /** The largest `data` body; what a socket reads at once fits in one. */
  dataBody: 1024 * 1024,
  /** The longest refusal reason, in bytes. */
  reason: 256,
  /** What the inlet may send on a stream before its answer: the client's first bytes. */
  openAllowance: 128 * 1024,
  /** Stream ids are 32-bit and only grow. */
  streamId: 0xffff_ffff,
  /** Windows are 32-bit. */
  window: 0xffff_ffff,
  /** The largest certificate a `credential` frame carries: a Portal certificate is about 1 KiB. */
  credentialBody: 8 * 1024,
  /** The least time between two `credential` frames of one sender on one session. */
  credentialIntervalMs: 1000,
} as const;

/** The body length of each control frame whose length is fixed. */
const fixedLength: Readonly<Partial<Record<number, number>>> = {
  [FrameType.open]: 8,
  [FrameType.accept]: 8,
  [FrameType.end]: 0,
  [FrameType.reset]: 0,
  [FrameType.credit]: 4,
  [FrameType.ping]: 8,
  [FrameType.pong]: 8,
  [FrameType.goAway]: 4,
};

/** A frame's header. Mutable: a reader decodes every header into the same one. */
export interface FrameHeader {
  type: number;
  id: number;
  length: number;
}

/** Which end of a session: the inlet opens streams, the outlet answers them. */
export type MuxRole = 'inlet' | 'outlet';

export function encodeHeader(type: FrameType, id: number, length: number): Buffer {
  return writeHeader(Buffer.allocUnsafe(frameHeaderSize), type, id, length);
}

/** A whole frame in one buffer: for control frames (a data body is written after its header, uncopied). */
export function encodeFrame(type: FrameType, id: number, body?: Buffer): Buffer {
  const length = body?.length ?? 0;
  const frame = writeHeader(Buffer.allocUnsafe(frameHeaderSize + length), type, id, length);
  body?.copy(frame, frameHeaderSize);
  return frame;
}

function writeHeader(bytes: Buffer, type: FrameType, id: number, length: number): Buffer {
  bytes[0] = type;
  bytes.writeUInt32BE(id, 1);
  bytes.writeUInt32BE(length, 5);
  return bytes;
}

/** Reads the header at `offset` of `bytes` (which holds at least frameHeaderSize bytes from there). */
export function decodeHeader(
  bytes: Buffer,
  offset = 0,
  into: FrameHeader = { type: 0, id: 0, length: 0 },
): FrameHeader {
  into.type = bytes[offset] as number;
  into.id = bytes.readUInt32BE(offset + 1);
  into.length = bytes.readUInt32BE(offset + 5);
  return into;
}

const sentBy: Readonly<Partial<Record<number, MuxRole>>> = {
  [FrameType.open]: 'inlet',
  [FrameType.accept]: 'outlet',
  [FrameType.refuse]: 'outlet',
};

/**
 * Checks a header received by `role`: what the frame is, who may send it, on which stream, with which
 * length. `lastOpened` is the highest stream id opened so far (by the inlet). Undefined when it may
 * be read, else the problem.
 */
export function checkHeader(header: FrameHeader, role: MuxRole, lastOpened: number): string | undefined {
  const { type, id, length } = header;
  if (type < FrameType.open || type > FrameType.credential) return `unknown frame type ${type}`;
  if (sentBy[type] === role) return `frame type ${type} from the wrong side`;
  const onSession =
    type === FrameType.ping || type === FrameType.pong || type === FrameType.goAway || type === FrameType.credential;
  if (onSession !== (id === 0)) return `frame type ${type} on stream ${id}`;
  if (type === FrameType.data) {
    if (length > frameLimits.dataBody) return `a frame of ${length} bytes`;
  } else if (type === FrameType.refuse) {
    if (length < 1 || length > 1 + frameLimits.reason) return `a refusal of ${length} bytes`;
  } else if (type === FrameType.credential) {
    if (length < 1 || length > frameLimits.credentialBody) return `a credential of ${length} bytes`;
  } else if (length !== fixedLength[type]) {
    return `frame type ${type} with ${length} bytes`;
  }
  if (type === FrameType.open) return id <= lastOpened ? `stream ${id} opened after ${lastOpened}` : undefined;
  if (!onSession && id > lastOpened) return `frame type ${type} on stream ${id}, which was never opened`;
  return undefined;
}

/** The window a receiver advertises for one stream, in `open` and `accept`. */
export interface AdvertisedWindow {
  /** The window at the stream's start. */
  readonly initial: number;
  /** The most it grows to. */
  readonly most: number;
}

export function encodeWindow(window: AdvertisedWindow): Buffer {
  const body = Buffer.allocUnsafe(8);
  body.writeUInt32BE(window.initial, 0);
  body.writeUInt32BE(window.most, 4);
  return body;
}

/** The window of an `open` or `accept` body (checked by checkHeader: 8 bytes), or the problem with it. */
export function decodeWindow(type: FrameType, body: Buffer): AdvertisedWindow | string {
  const initial = body.readUInt32BE(0);
  const most = body.readUInt32BE(4);
  const floor = type === FrameType.accept ? frameLimits.openAllowance : 1;
  if (initial < floor) return `a window of ${initial} bytes, below ${floor}`;
  if (most < initial) return `a window that grows to ${most} bytes, below its start of ${initial}`;
  return { initial, most };
}

export function encodeRefusal(code: RefusalCode, reason: string): Buffer {
  const text = Buffer.from(reason).subarray(0, frameLimits.reason);
  const body = Buffer.allocUnsafe(1 + text.length);
  body[0] = code;
  text.copy(body, 1);
  return body;
}

/** A `refuse` body (checked by checkHeader: 1 to 257 bytes), or the problem with it. */
export function decodeRefusal(body: Buffer): { readonly code: RefusalCode; readonly reason: string } | string {
  const code = body[0] as number;
  if (code !== RefusalCode.refused && code !== RefusalCode.goingAway) return `unknown refusal code ${code}`;
  return { code, reason: body.subarray(1).toString('utf8') };
}

export function encodeCredit(amount: number): Buffer {
  const body = Buffer.allocUnsafe(4);
  body.writeUInt32BE(amount);
  return body;
}

export const decodeCredit = (body: Buffer): number => body.readUInt32BE(0);

export function encodeGoAway(code: GoAwayCode): Buffer {
  const body = Buffer.allocUnsafe(4);
  body.writeUInt32BE(code);
  return body;
}

/** A `go-away` body (checked by checkHeader: 4 bytes), or the problem with it. */
export function decodeGoAway(body: Buffer): GoAwayCode | string {
  const code = body.readUInt32BE(0);
  return isGoAwayCode(code) ? code : `unknown go-away code ${code}`;
}

/**
 * The data plane's contract between an inlet and an outlet, inside their end-to-end TLS: the verdict
 * each side sends first (the first line), which names the protocol version and says what follows,
 * then the frames of src/wire/protocol/mux-frame.ts.
 */
import { versionHint } from './version.ts';

/**
 * The version of the end-to-end protocol, named in each side's verdict:
 * 1. client connections as HTTP/2 CONNECT streams; no version named.
 * 2. the multiplexer of src/wire/mux.ts, with 4 MiB windows from the start.
 * 3. each stream's windows start at 128 KiB and grow as the stream's bytes leave.
 * 4. a warm stream is a session of one stream (no open line), so that its end is a frame.
 * 5. a go-away frame with a code; pings carry a payload their pongs return; each receiver advertises
 *    its windows in `open` and `accept`; a refusal carries a code.
 */
export const e2eProtocolVersion = 5;

/**
 * The newest end-to-end protocol this side speaks, named in the verdict as `newest` beside `protocol`
 * (which stays 5, so that a peer of 5, which reads neither `newest` nor any frame of 6, is not refused):
 * the two sides speak the lower of their newest. Versions since 5:
 * 6. a `credential` frame carries a side's renewed certificate, so that a session outlives the
 *    certificate it was opened with only by a renewed one the peer checked.
 */
export const e2eNewestVersion = 6;

/** The version two sides speak: the lower of their newest (a peer that names none speaks its `protocol`). */
export function spokenVersion(theirs: Verdict): number {
  return Math.min(e2eNewestVersion, theirs.newest ?? theirs.protocol ?? 1);
}

/** The sentence both nodes log when their end-to-end versions differ. */
export function e2eVersionMismatch(peer: number | undefined): string {
  const theirs = peer ?? '1 (no version)';
  return `the peer node speaks end-to-end protocol ${theirs} and this node ${e2eProtocolVersion}; ${versionHint}`;
}

/**
 * What an end-to-end connection carries, chosen by the inlet: a `session` is a multiplexer whose
 * streams carry client connections (and whose pings watch the peer); a `stream` is one warm connection
 * kept ready for one client, carried as a session of one stream.
 */
export type ChannelMode = 'session' | 'stream';

/** Each side's first line: what it saw of its peer's certificate, and whether it lets the peer on. */
export interface Verdict {
  readonly accept: boolean;
  /** Set by the inlet: what the connection carries after the verdicts. */
  readonly mode?: ChannelMode;
  /** The attributes this side saw on its peer's certificate. */
  readonly saw: readonly string[];
  /** This side's allow: an attribute name or an expression over the peer's attributes. */
  readonly want: string;
  /** The end-to-end protocol version this side speaks (none: 1). */
  readonly protocol?: number;
  /** The newest version this side speaks, from 6 on (none: `protocol`). */
  readonly newest?: number;
  /**
   * Why this side refuses the peer when its attributes are not the reason: the peer was revoked from the
   * project, or this side's list of revoked members is older than it accepts (`stale`). Absent from
   * peers of earlier versions, which refuse only by attribute.
   */
  readonly refusal?: 'revoked' | 'stale';
}

/**
 * The peer's verdict as read from its line: every field checked (a missing or odd one reads as a
 * refusal, of nothing seen, wanting "?"); a peer of another version is the mismatch sentence instead.
 */
export function parseVerdict(message: unknown): Verdict | { readonly mismatch: string } {
  const line = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
  const { protocol, accept, saw, want, mode, refusal, newest } = line;
  if (protocol !== e2eProtocolVersion)
    return { mismatch: e2eVersionMismatch(typeof protocol === 'number' ? protocol : undefined) };
  return {
    accept: accept === true,
    saw: Array.isArray(saw) ? saw.filter((item): item is string => typeof item === 'string') : [],
    want: typeof want === 'string' ? want : '?',
    protocol,
    ...(typeof newest === 'number' && Number.isInteger(newest) && newest > protocol ? { newest } : {}),
    ...(mode === 'session' || mode === 'stream' ? { mode } : {}),
    ...(refusal === 'revoked' || refusal === 'stale' ? { refusal } : {}),
  };
}

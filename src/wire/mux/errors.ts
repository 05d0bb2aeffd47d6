/**
 * What a session's streams and the session itself fail with: one class per kind, each with a stable
 * code, so that a node tells them apart without reading their text.
 */
import { PortalError } from '../../shared/errors.ts';
import { GoAwayCode, goAwayNames } from '../protocol/mux-frame.ts';

type StreamRefusalCode = 'STREAM_REFUSED' | 'CLIENT_LEFT' | 'SESSION_GONE_AWAY';

/** Why the outlet refused a stream, or why it ended before the outlet answered. */
export class StreamRefused extends PortalError {
  readonly exitCode = 1 as const;

  constructor(
    message: string,
    code: StreamRefusalCode = 'STREAM_REFUSED',
    hint = "the outlet's log says more; the client may connect again",
  ) {
    super(code, message, { hint });
  }
}

/** The inlet's client closed its connection before the outlet answered: no refusal. */
export class ClientLeft extends StreamRefused {
  constructor(message: string) {
    super(message, 'CLIENT_LEFT', 'nothing to do: the client left');
  }
}

/**
 * The stream was not carried because its session takes no new streams (either side went away, or the
 * session ended): the node opens it on another session.
 */
export class SessionGoneAway extends StreamRefused {
  constructor(message: string) {
    super(message, 'SESSION_GONE_AWAY', 'the node opens another session by itself');
  }
}

/** The session ended: its connection closed, or the peer closed it; `goAway` is the peer's word, if any. */
export class SessionClosed extends PortalError {
  readonly exitCode = 1 as const;

  constructor(
    message: string,
    readonly goAway?: GoAwayCode,
    cause?: unknown,
  ) {
    super('SESSION_CLOSED', message, { hint: 'the node opens another session by itself', cause });
  }

  /** The end of a session whose peer went away with `code` (a normal one needs no code in the text). */
  static byPeer(code: GoAwayCode): SessionClosed {
    const why = code === GoAwayCode.normal ? '' : `: ${goAwayNames[code]}`;
    return new SessionClosed(`the peer closed the session${why}`, code);
  }
}

/** The peer broke the session protocol: the session is closed with a go-away that says so. */
export class SessionProtocolError extends PortalError {
  readonly exitCode = 1 as const;

  constructor(problem: string) {
    super('SESSION_PROTOCOL_ERROR', `the peer broke the session protocol: ${problem}`, {
      hint: 'run the same Portal version on both nodes; a peer that keeps doing this misbehaves',
    });
  }
}

/** This side's session failed (a bug, or a handler that threw): closed with a go-away that says so. */
export class SessionInternalError extends PortalError {
  readonly exitCode = 1 as const;

  constructor(problem: string, cause?: unknown) {
    super('SESSION_INTERNAL_ERROR', `the session failed: ${problem}`, {
      hint: 'the node opens another session by itself; report this with the log around it',
      cause,
    });
  }
}

/**
 * The life of one stream of a session, as a pure state machine: a state and an event give the next
 * state, or the problem with that event. The session (src/wire/mux/session.ts) feeds it what its
 * stream's socket does and the frames the peer sends on the stream; a problem with a peer's frame is
 * a violation of the protocol, one with this side's own doing a failure of the session itself.
 *
 * Before its answer, a stream is the inlet's (`unannounced`, `unanswered…`) or the outlet's
 * (`connecting…`); once answered, both sides share the states of a half-close at a time (as HTTP/2's
 * streams do): `open`, `halfClosedLocal` (this side's end is written, or follows the bytes its
 * window holds), `halfClosedRemote`, `closed`. A socket that closes cleanly after its end while bytes
 * are held leaves the stream `draining` until they and the end are sent. `gone` is the end of it.
 */

export const StreamState = {
  /** The inlet's: its `open` waits a turn for the client's first bytes; the outlet has not heard of it. */
  unannounced: 'unannounced',
  /** The inlet's: `open` written, no answer yet. */
  unanswered: 'unanswered',
  /** The inlet's: no answer yet, and its client has ended its side. */
  unansweredHalfClosedLocal: 'unanswered, half-closed here',
  /** The inlet's: no answer yet, and its client is gone after its end, with bytes held. */
  unansweredDraining: 'unanswered, draining',
  /** The outlet's: its target connects; what arrives meanwhile waits in the target socket's buffer. */
  connecting: 'connecting',
  /** The outlet's: its target connects, and the inlet has ended its side. */
  connectingHalfClosedRemote: 'connecting, half-closed by the peer',
  open: 'open',
  halfClosedLocal: 'half-closed here',
  halfClosedRemote: 'half-closed by the peer',
  /** Both sides ended: the stream goes with its socket. */
  closed: 'closed',
  /** The socket closed after its end with bytes held: they and the end go, then the stream. */
  draining: 'draining',
  gone: 'gone',
} as const;
export type StreamState = (typeof StreamState)[keyof typeof StreamState];

/** What happens to a stream: this side's doing first, then the peer's frames. */
export type StreamEvent =
  /** The inlet wrote the stream's `open`. */
  | 'announce'
  /** The outlet's target connected (again: nothing changes). */
  | 'accept'
  /** The stream's socket ended its side. */
  | 'socketEnded'
  /** The stream's socket closed with an error, or with nothing held. */
  | 'socketClosed'
  /** The stream's socket closed cleanly with bytes held. */
  | 'socketClosedHolding'
  /** The bytes held have all been sent (and the end after them, when the socket had ended). */
  | 'drained'
  | 'peerAccept'
  | 'peerRefuse'
  | 'peerData'
  | 'peerEnd'
  | 'peerReset'
  | 'peerCredit';

/** Why an event may not happen in a state. */
export interface StreamProblem {
  readonly problem: string;
}

export const isProblem = (next: StreamState | StreamProblem): next is StreamProblem => typeof next !== 'string';

/** Whether the event is a frame of the peer's (a problem with it is the peer's violation). */
export const isPeerEvent = (event: StreamEvent): boolean => event.startsWith('peer');

const {
  unannounced,
  unanswered,
  unansweredHalfClosedLocal,
  unansweredDraining,
  connecting,
  connectingHalfClosedRemote,
  open,
  halfClosedLocal,
  halfClosedRemote,
  closed,
  draining,
  gone,
} = StreamState;

const isUnanswered = (state: StreamState) =>
  state === unanswered || state === unansweredHalfClosedLocal || state === unansweredDraining;
const isConnecting = (state: StreamState) => state === connecting || state === connectingHalfClosedRemote;

/** A frame of the peer's that the stream cannot take yet: none before its open, few before its answer. */
function tooEarly(state: StreamState, what: string): StreamProblem | undefined {
  if (state === unannounced) return { problem: `${what} before its open` };
  if (isUnanswered(state)) return { problem: `${what} before its answer` };
  return undefined;
}

/** The next state of a stream in `state` when `event` happens. */
export function transition(state: StreamState, event: StreamEvent): StreamState | StreamProblem {
  if (state === gone) return gone;
  switch (event) {
    case 'announce':
      return state === unannounced ? unanswered : { problem: 'announced twice' };
    case 'accept':
      if (state === connecting) return open;
      if (state === connectingHalfClosedRemote) return halfClosedRemote;
      return state === unannounced || isUnanswered(state) ? { problem: 'accepted by the inlet' } : state;
    case 'socketEnded':
      if (state === unanswered) return unansweredHalfClosedLocal;
      if (state === open) return halfClosedLocal;
      if (state === halfClosedRemote) return closed;
      if (state === unannounced) return { problem: 'an end before its open' };
      if (isConnecting(state)) return { problem: 'the target ended before it was accepted' };
      return { problem: 'ended twice' };
    case 'socketClosed':
      return gone;
    case 'socketClosedHolding':
      if (state === unansweredHalfClosedLocal) return unansweredDraining;
      return state === halfClosedLocal || state === closed ? draining : gone;
    case 'drained':
      return state === draining || state === unansweredDraining ? gone : state;
    case 'peerAccept':
      if (state === unanswered) return open;
      if (state === unansweredHalfClosedLocal) return halfClosedLocal;
      if (state === unansweredDraining) return draining;
      return state === unannounced ? { problem: 'an answer before its open' } : { problem: 'a second answer' };
    case 'peerRefuse':
      if (isUnanswered(state)) return gone;
      return state === unannounced
        ? { problem: 'an answer before its open' }
        : { problem: 'a refusal after its answer' };
    case 'peerReset':
      return state === unannounced ? { problem: 'a reset before its open' } : gone;
    case 'peerData':
      if (state === connecting || state === open || state === halfClosedLocal || state === draining) return state;
      return tooEarly(state, 'data') ?? { problem: 'data after its end' };
    case 'peerEnd':
      if (state === connecting) return connectingHalfClosedRemote;
      if (state === open) return halfClosedRemote;
      if (state === halfClosedLocal) return closed;
      if (state === draining) return state;
      return tooEarly(state, 'an end') ?? { problem: 'a second end' };
    case 'peerCredit':
      if (isConnecting(state)) return { problem: 'credit before its accept' };
      return tooEarly(state, 'credit') ?? state;
  }
}

/** What the peer hears of a stream whose socket closed: nothing when it has heard everything already. */
export function farewellOf(state: StreamState, holding: boolean): 'refuse' | 'reset' | undefined {
  // The outlet's target closed before it connected: the outlet cannot reach its target.
  if (isConnecting(state)) return 'refuse';
  // A stream the outlet never heard of needs no reset, nor one whose ends both went.
  if (state === unannounced || state === gone || state === draining || state === unansweredDraining) return undefined;
  return state === closed && !holding ? undefined : 'reset';
}

/** Whether this side's socket has ended its side: its end is written, or follows the bytes held. */
export const endedHere = (state: StreamState): boolean =>
  state === halfClosedLocal ||
  state === closed ||
  state === draining ||
  state === unansweredHalfClosedLocal ||
  state === unansweredDraining;

/** Whether this side acknowledges what it receives: once answered (the outlet: once it accepted). */
export const acknowledges = (state: StreamState): boolean =>
  state === open || state === halfClosedLocal || state === halfClosedRemote || state === closed;

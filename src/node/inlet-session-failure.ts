/** Why an inlet's attempt at a session failed, read from the error alone, in the shape /show gives it. */
import { PortalError, printable } from '../shared/errors.ts';
import { isGuardRefusal, PeerRefused, SessionFailed } from '../wire/e2e-session.ts';
import type { FailureReason } from './metrics.ts';
import type { RefusalShow } from './refusals.ts';

/** Why the inlet's last attempt at a session failed, as /show gives it. */
export interface SessionFailureShow {
  readonly reason: FailureReason;
  /** The error, in words: the relay's answer, the verdict, the TLS failure. */
  readonly message: string;
  /** An allow refusal by the end-to-end verdicts: whose, and what it saw. */
  readonly refusal: Omit<RefusalShow, 'count' | 'last_at'> | null;
  readonly at: string;
}

/** Refused by the outlet's verdict, or by the relay on the outlet's behalf. */
export function isPeerRefusal(error: unknown): boolean {
  return (
    error instanceof PeerRefused ||
    isGuardRefusal(error) ||
    (error instanceof PortalError && error.code === 'PEER_NOT_ALLOWED')
  );
}

/** What /show says of a failed attempt at a session, and the reason it is counted under. */
export function sessionFailureOf(error: unknown, at: Date): SessionFailureShow {
  const message = printable(((error as Error).message ?? String(error)).slice(0, 300));
  const code = error instanceof PortalError ? error.code : '';
  let refusal: SessionFailureShow['refusal'] = null;
  let reason: FailureReason = 'relay_failed';
  if (error instanceof PeerRefused) {
    reason = 'peer_refused';
    const { ours, theirs } = error.verdicts;
    const mine = ours?.accept === false;
    const verdict = mine ? ours : theirs;
    refusal = {
      by: mine ? 'this node' : 'the peer',
      told_by: 'verdict',
      peer: null,
      saw: verdict?.saw ?? [],
      allow: verdict?.want ?? '?',
    };
  } else if (code === 'PEER_NOT_ALLOWED' || isGuardRefusal(error)) {
    reason = 'peer_refused';
  } else if (code === 'RELAY_UNAVAILABLE' || code === 'OUTLET_NOT_HERE') {
    reason = 'no_outlet';
  } else if (error instanceof SessionFailed) {
    reason = 'session_failed';
  }
  return { reason, message, refusal, at: at.toISOString() };
}

/** What a member's `member-report` says it carries: checked before the controller keeps it. */
import { InputError } from '../shared/errors.ts';
import { maxLiveSessions } from '../wire/protocol.ts';

/** A count of live sessions: an integer from 0 to maxLiveSessions, else refused (BAD_REQUEST). */
export function readLiveSessions(liveSessions: number): number {
  if (!Number.isSafeInteger(liveSessions) || liveSessions < 0 || liveSessions > maxLiveSessions)
    throw new InputError('BAD_REQUEST', `a member reported ${String(liveSessions).slice(0, 40)} live sessions`, {
      hint: `a count of live sessions is an integer from 0 to ${maxLiveSessions}`,
    });
  return liveSessions;
}

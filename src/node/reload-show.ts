/** A node's reloads as GET /show gives them, and `portal node reload` reads them. */
import type { ErrorCode } from '../shared/error-codes.ts';
import type { Problem } from '../shared/errors.ts';

export interface ReloadShow {
  /** Reloads done since the node started, applied or refused: each adds one. */
  readonly count: number;
  readonly last: ReloadOutcome | null;
}

export interface ReloadOutcome {
  readonly at: string;
  /**
   * applied: the configuration runs; refused: nothing changed, the running one stays; failed: applied
   * but for the inlets named in `message`, which could not listen.
   */
  readonly outcome: 'applied' | 'refused' | 'failed';
  /** One line: what changed, or why it was refused. */
  readonly message: string;
  /** The configuration's problems, each located, when it was refused for them. */
  readonly problems: readonly Problem[];
  /** The refusal's error code and what to do; null when applied. */
  readonly code: ErrorCode | null;
  readonly hint: string | null;
  /** The exit code `portal node reload` gives: 0 applied, 2 a bad configuration, 1 a failure at run time. */
  readonly exit: 0 | 1 | 2;
  /** The portals added, removed and replaced ("outlet db", "inlet web"), and how many stayed as they were. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly unchanged: number;
}

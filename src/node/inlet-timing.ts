/** How long the inlet waits for each way to the outlet: the direct path, each relay, a renewal's dial. */

/** How long a new session waits for the outlet to dial the direct path before it goes through a relay. */
export const directBudgetMs = 300;

/** How long one relay may take to give a session or warm stream while another relay could still be tried. */
export const relayAttemptMs = 2000;
/** The most an attempt through the last relay left may take (see RelayAttempts.lastAttemptBudget). */
export const lastRelayAttemptMs = 10_000;
/** How long a renewed direct session waits for the outlet's new dial before the relay carries it. */
export const renewalDirectWaitMs = 2000;
/**
 * How long a relay that failed an attempt is tried after the others: doubling for failures in a row,
 * up to the second bound.
 */
export const relayTroubleMs = 5000;
export const relayTroubleMaxMs = 60_000;

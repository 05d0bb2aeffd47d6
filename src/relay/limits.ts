/**
 * The relay's timeouts and defaults: how long a splice waits for its halves and an outlet for its
 * dial, what one member or outlet may hold, and how refusals are reported. Declared once here; what
 * the relay shares with the node and the controller is in src/wire/limits.ts and src/shared/limits.ts.
 */
import { outletPoolMax } from '../shared/limits.ts';

/**
 * How long the first half of a splice waits for the second: room for an outlet to be dialled, to
 * answer within dialAnswerMs, and for another to be tried when it does not.
 */
export const spliceTimeoutMs = 10_000;

/** Splices one member may have waiting for their halves: a burst of clients, not a flood. */
export const pendingPerMember = 16;

/** Dials one outlet may have unanswered at once. */
export const pendingPerOutlet = 64;

/**
 * How long an outlet has to answer a dial before the splice is offered to another outlet: an outlet
 * that is up answers in a round trip; one that is not should not hold the inlet's client.
 */
export const dialAnswerMs = 2000;

/** Outlets of one relay name an inlet is told of (a pool): as many as a list in a pushed event holds. */
export const poolListed = outletPoolMax;

/** Watches one member connection may hold: one per relay name its inlets ask for. */
export const watchesPerConnection = 64;

/** Dials in a row an outlet may leave unanswered before it is taken out of the choice: one may be lost. */
export const unansweredLimit = 2;

/** How long such an outlet stays out of the choice while another can be chosen. */
export const suspendMs = 30_000;

/** How often outlets are told which members the relay refused for them: once a second, in one event each. */
export const refusalReportMs = 1000;

/** Members one report names at most; the rest wait for the next report, so a report stays small. */
export const refusedMembersPerReport = 100;

/**
 * Idle time before a spliced connection is probed by TCP keepalive: a node that loses power sends no
 * FIN, and the probes find the dead connection.
 */
export const spliceKeepAliveMs = 30_000;

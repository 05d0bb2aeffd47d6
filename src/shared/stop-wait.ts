/**
 * How long whoever stops a Portal process waits before killing it: the process drains its
 * connections for up to PORTAL_DRAIN_TIMEOUT, then closes what is left and exits, which takes a
 * moment more. systemd's TimeoutStopSec, a compose file's stop_grace_period, `portal reset` waiting
 * for a node and the wait for the embedded controller all follow from this one margin.
 */
import { stopMarginMs } from './limits.ts';

/** How long to wait for a process that drains for `drainMs` to exit after SIGTERM. */
export const stopWaitMs = (drainMs: number): number => drainMs + stopMarginMs;

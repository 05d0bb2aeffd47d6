/** What an outlet allows its inlets at once, and how long it waits for its target. */

/** What dials may cost an outlet at once. */
export const outletLimits = {
  handshakesPerMember: 32,
  handshakesTotal: 128,
  /**
   * Warm streams a peer may keep waiting for their first client: twice the most an inlet keeps
   * (PORTAL_WARM_STREAMS, 16).
   */
  unopenedPerMember: 32,
} as const;

export { targetConnectTimeoutMs } from './limits.ts';

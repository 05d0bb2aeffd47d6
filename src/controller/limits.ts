/**
 * The controller's timeouts and defaults. Declared once here; what the controller shares with the
 * node and the relay is in src/wire/limits.ts and src/shared/limits.ts.
 */

/**
 * How long a node certificate is valid when --credential-lifetime is not given: nodes renew at half
 * of it, so a stolen certificate stays good for an hour at most, at the cost of a renewal per node
 * every half hour.
 */
export const defaultCredentialLifetimeMs = 3_600_000;

/**
 * How long a statement waits for the SQLite store's lock while another connection holds it, rather
 * than failing at once as SQLite does by default.
 */
export const storeBusyTimeoutMs = 5000;

/**
 * Requests a connection without a member certificate may send before it is closed: such a peer
 * enrols or asks for a re-issue, which takes a few.
 */
export const anonymousRequests = 8;

/** Requests per second, and the burst, that one source may send without a member certificate. */
export const anonymousRate = { perSecond: 50, burst: 100 } as const;

/**
 * Direct paths one control connection may advertise at once: a node advertises one per relay name
 * its inlets want, so this bounds what one connection adds to its project's adverts.
 */
export const advertsPerConnection = 64;

/**
 * How long /healthz waits for the store to answer before it says the controller does not serve: a
 * store that takes longer fails the requests of members too.
 */
export const healthStoreWaitMs = 2000;

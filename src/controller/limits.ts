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

/**
 * What a member's audit reports may write (src/controller/audit-budget.ts), in records and in bytes
 * (a record's report id, kind, members and details as sent), each a token bucket: `perSecond`
 * refills up to `burst`. An inlet reports one `session` per client connection, so 10 a second holds a
 * busy portal, and the burst holds the backlog a node sends once the controller is back (its outbox
 * keeps what is not taken and sends it when told). `total` is shared by every member of every project,
 * so that many members flooding at once cost what one large deployment's honest reports would.
 * A member's worst case is docs/audit.md's "What a member's reports may cost".
 */
export const auditBudget = {
  member: {
    records: { perSecond: 10, burst: 1000 },
    bytes: { perSecond: 8 * 1024, burst: 1024 * 1024 },
  },
  total: {
    records: { perSecond: 200, burst: 20_000 },
    bytes: { perSecond: 256 * 1024, burst: 16 * 1024 * 1024 },
  },
  /** Members whose buckets are kept at once; full ones are forgotten first. */
  keys: 100_000,
} as const;

/**
 * Records of a member's that the controller did not write (over its budget while told to wait, or
 * not what their kind may say) are counted and recorded once per member per window of this long, as
 * one `reports-dropped` record with the counts.
 */
export const reportsDroppedWindowMs = 5000;

/**
 * How long the answer to a batch sent while its member was told to wait is held back (at most until
 * the wait ends): a connection reads no more while its requests in flight are all answered later, so
 * a flooding member sends a few batches a wait rather than as many as the controller can parse. Half
 * the reporter's own request timeout (controlRequestTimeoutMs), so that a busy controller's answer
 * still comes in time.
 */
export const earlyReportHoldMs = 5000;

/**
 * How far a reported event's time may lie from the controller's clock: ahead by a clock's usual skew,
 * behind by as long as a node may keep records while the controller is away. Outside it the record's
 * time is the controller's, and the reporter's is kept in its details as `reported_time`.
 */
export const reportedTimeBounds = { aheadMs: 5 * 60_000, behindMs: 7 * 24 * 3_600_000 } as const;

/**
 * The wire's timeouts and defaults, which the node, the relay and the controller share: handshakes,
 * control channels, heartbeats, splices, and what a peer may cost before and after it proves who it
 * is. Declared once here; the code that applies them imports them.
 */

/**
 * How long the end-to-end TLS handshake between an inlet and an outlet, with the verdicts that follow
 * it, may take: a few round trips, through a relay at worst. A peer that stalls longer is cut rather
 * than left holding a socket and a handshake's memory.
 */
export const e2eHandshakeTimeoutMs = 10_000;

/**
 * How long opening a control channel to the controller or a relay (TCP, TLS and the version exchange)
 * may take before the attempt fails; the standing channels then try again after a backoff.
 */
export const controlConnectTimeoutMs = 5000;

/** How long a request on a control channel waits for its answer: a peer gone silent fails it rather than hangs it. */
export const controlRequestTimeoutMs = 10_000;

/**
 * How often peers are pinged when PORTAL_HEARTBEAT is not set: on sessions, and on the channels to the
 * controller and the relays, where each ping must be answered within as long.
 */
export const heartbeatIntervalMs = 5000;

/**
 * Silence for this long ends a session: twice the interval, so that a pong waiting behind the data a
 * busy peer sends does not end a session that is fine.
 */
export const heartbeatTimeoutMs = 2 * heartbeatIntervalMs;

/** How long the TCP connection to a relay may take before the dial fails. */
export const spliceDialTimeoutMs = 5000;

/**
 * Time from accept to a proven identity (a splice secret or a member certificate): a member proves
 * itself with one handshake, so only peers that prove nothing ever reach it.
 */
export const admissionDeadlineMs = 10_000;

/**
 * Unauthenticated connections one source (an IPv4 address, an IPv6 /64) may hold: room for the nodes
 * of one network behind one address, none for one host to fill the total.
 */
export const admissionPerSource = 64;

/** Unauthenticated connections in all; past it the oldest makes room, so a slow flood cannot lock members out. */
export const admissionTotal = 1024;

/**
 * TLS handshakes per second, and the burst, that one source may start: a handshake costs about a
 * millisecond of CPU and memory the allocator does not always give back, so a flood is cut before it
 * starts, while nodes that reconnect together stay well within it.
 */
export const handshakesPerSource = { perSecond: 50, burst: 100 } as const;

/**
 * Unread answers and events a peer of a JSON-lines service may leave queued before its connection is
 * closed: far more than any honest peer leaves, and a bound on what one that never reads costs.
 */
export const queuedBytesPerPeer = 1024 * 1024;

/**
 * Requests a member's connection to the controller or a relay may have in flight at once: what a
 * member's flood of requests may cost is bounded by it.
 */
export const memberInFlight = 32;

/**
 * Connections to the controller or a relay one member may hold at once: a node keeps one, so this
 * leaves room for reconnections while it bounds what one member holds.
 */
export const memberConnections = 16;

/**
 * The longest an outlet holds a stream's `accept` for a frame to go with: one TLS record, one relay
 * pass and one read fewer per connection, for a wait short enough that no client notices.
 */
export const acceptWaitMs = 100;

/** How long a closing session's link, ended cleanly, waits for the peer's close before it is destroyed. */
export const closingLinkMs = 10_000;

/**
 * Revocations one `revocations-return` carries: a node holds those of one credential lifetime; each
 * costs the controller an HMAC, and 1,000 entries keep the request well under a JSON line's bound. A
 * controller ignores the rest of a longer one; a node sends no more.
 */
export const revocationsReturnedPerRequest = 1000;

/**
 * What one `portal-report` holds at most: portals, and outlets listed for one inlet's pool. A node of
 * more portals reports the first of them; the controller refuses a report past the first bound.
 */
export const portalReportBounds = { portals: 32, peers: 16 } as const;

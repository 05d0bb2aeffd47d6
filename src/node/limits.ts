/**
 * The node's timeouts and defaults: how an inlet chooses and waits for its paths, how an outlet dials
 * and bounds its targets, how the node reconnects, renews, logs and serves its status. Declared once
 * here; what the wire and the other layers share is in src/wire/limits.ts and src/shared/limits.ts.
 */
import { outletPoolMax } from '../shared/limits.ts';

/** How long a new session waits for the outlet to dial the direct path before it goes through a relay. */
export const directBudgetMs = 300;

/** How long an advert is given to reach the outlets through the controller, before directBudgetMs starts. */
export const advertReachMs = 1000;

/** How long one relay may take to give a session or warm stream while another relay could still be tried. */
export const relayAttemptMs = 2000;

/**
 * The most an attempt through the last relay left may take: all of it when the node knows only that
 * relay, since a slow path is better than none.
 */
export const lastRelayAttemptMs = 10_000;

/** How long a renewed direct session waits for the outlet's new dial before the relay carries it. */
export const renewalDirectWaitMs = 2000;

/**
 * How long a relay that failed an attempt is tried after the others: doubling for failures in a row,
 * from the first bound up to the second, so that a stalled relay is passed over but never for long.
 */
export const relayTroubleMs = 5000;
export const relayTroubleMaxMs = 60_000;

/** How long a new client waits for a session before it is refused. */
export const clientWaitMs = 3000;

/** Warm end-to-end streams an inlet keeps ready for new clients when PORTAL_WARM_STREAMS is not set. */
export const defaultWarmStreams = 2;

/**
 * The most warm streams an inlet may ask for (PORTAL_WARM_STREAMS); an outlet keeps twice as many of
 * one inlet waiting, and no more.
 */
export const maxWarmStreams = 16;

/**
 * How long the inlet's clients must pause before used warm streams are replaced, whether the inlet
 * makes them or the outlet dials them on the direct path: a handshake costs both nodes CPU that the
 * clients of a burst should not queue behind (they ride the session meanwhile).
 */
export const refillQuietMs = 50;

/**
 * Distinct addresses of one advert an outlet dials: an inlet listening on every interface advertises
 * up to nine, PORTAL_DIRECT_ADVERTISE up to sixteen.
 */
export const directAddressesPerAdvert = 16;

/**
 * Distinct addresses one inlet may make an outlet dial within directAddressWindowMs, over all its
 * adverts: room for an inlet that moves once or twice, none for using the outlet as a port scanner.
 */
export const directDistinctAddresses = 32;

/** The window of directDistinctAddresses. */
export const directAddressWindowMs = 10 * 60_000;

/** The first wait before a failed direct dial is tried again; it doubles up to directRetryMaxMs. */
export const directRetryInitialMs = 1000;

/** The longest wait between direct dials that fail: about a dial a minute for an inlet that stays unreachable. */
export const directRetryMaxMs = 60_000;

/** A direct path waits this long for its first line: a dialling outlet sends it at once. */
export const directDeadlineMs = 5000;

/**
 * Silent connections one source may hold on a direct path: an outlet names the secret at once, so
 * only a stalling peer holds any for long.
 */
export const directPerSource = 32;

/** Silent connections a direct path holds in all. */
export const directTotal = 256;

/**
 * How long a connection to the target may take before it counts as failed: a dropped SYN fails as a
 * refusal does, only later.
 */
export const targetConnectTimeoutMs = 10_000;

/**
 * How long the inlet waits for the outlet to answer a stream's open: the outlet answers once its
 * target connection is made or has failed, so as long as that may take.
 */
export const streamAnswerTimeoutMs = targetConnectTimeoutMs;

/** Target connections one inlet node may hold open at an outlet at once (PORTAL_OUTLET_CONNECTIONS_PER_INLET). */
export const targetConnectionsPerInlet = 512;

/** Target connections an outlet holds open at once, for every inlet together (PORTAL_OUTLET_CONNECTIONS). */
export const targetConnections = 4096;

/** Descriptors left for everything else a node holds: relay and controller links, sessions, warm streams, logs. */
export const reservedDescriptors = 1024;

/** How long a client of a `tls: true` inlet may take to finish its TLS handshake. */
export const clientTlsTimeoutMs = 10_000;

/** Relays a node keeps connections to at once: a bound on what a project's relay list can cost a node. */
export const maxRelayLinks = 16;

/** Entries of the controller's list a node takes as candidates; the rest are ignored. */
export const maxRelayCandidates = 256;

/** How long a relay in a slot may stay unconnected while candidates wait before it gives the slot up. */
export const relayProbeMs = 3000;

/** The longest a relay that gave up its slot waits before it may take one from an unconnected relay. */
export const relayRequeueMaxMs = 60_000;

/**
 * The first wait before reconnecting to the controller or a relay, and the longest: a peer that comes
 * back is found at once, and one that is gone costs a try about every 2 s.
 */
export const reconnectInitialMs = 100;
export const reconnectMaxMs = 2000;

/** Random spread of a reconnection wait, as a fraction of it: nodes that lost the same peer do not return together. */
export const reconnectJitter = 0.3;

/**
 * The first wait after a failed certificate renewal, and the longest: renewal starts at half the
 * certificate's life, which leaves time for many tries.
 */
export const renewalRetryInitialMs = 1000;
export const renewalRetryMaxMs = 30_000;

/** Near the end of a certificate's life, renewal is tried again at most this often. */
export const renewalRetryFloorMs = 250;

/**
 * A warning that may come thousands of times a second (a target that refuses, descriptors running
 * out) is logged once in this long per key, with the count meanwhile.
 */
export const throttledWarningMs = 10_000;

/** Keys of repeated warnings remembered at once; quiet ones are forgotten first, so a parade of keys is bounded. */
export const warningKeysKept = 1000;

/**
 * How long a streak of failed connections, or a refusal, counts after it last happened: a target that
 * refused and was not tried since, or a member refused once, stops being reported after this.
 */
export const recentMs = 60_000;

/**
 * How long a node or relay holds a new peer while it fetches the list of revoked members (at start,
 * and each time its connection to the controller opens again): long enough for the list to arrive from
 * a controller that answers, short enough that one that does not costs a start little. Past it, the
 * list kept on disk decides.
 */
export const revocationListWaitMs = 3000;

/**
 * The audit records a node or relay keeps while the controller is away (src/node/audit-outbox.ts):
 * at most `records` of them and `bytes` of file (a session record is about 400 bytes, so the bytes
 * bind first only for unusually large records); new ones wait `flushMs` so that they are written and
 * sent in batches; a batch that failed is sent again after `retryMs`, and what the controller's budget
 * did not take when it says (at most `maxRetryMs`).
 */
export const auditOutboxLimits = {
  records: 10_000,
  bytes: 8 * 1024 * 1024,
  flushMs: 250,
  retryMs: 2000,
  /** The longest the controller may tell the outbox to wait before it sends what its budget did not take. */
  maxRetryMs: 5 * 60_000,
} as const;

/**
 * Refusals are recorded per window of this long, one record per reason, portal and peer with their
 * count, so that a flood of refused attempts costs the trail a record per peer, not per attempt; at
 * most `keys` of them a window, the rest counted in one record with no peer.
 */
export const auditRefusalWindow = { ms: 5000, keys: 64 } as const;

/**
 * A controller or relay that refuses this node's certificate while it is valid may have been told the
 * node was revoked: the controller is asked at once, and again at most this often while refusals go on.
 */
export const revocationCheckMs = 30_000;

/**
 * Outlets of one relay name an inlet keeps sessions with (a pool): as many as a relay lists
 * (src/relay/limits.ts poolListed).
 */
export const poolMembersMax = outletPoolMax;

/**
 * What a failed open costs an outlet of a pool in the inlet's choice, in clients: one refused client
 * makes it the last choice among outlets within a few clients of each other.
 */
export const poolPenaltyPerFailure = 4;

/** The most a pool member's penalty grows to: an outlet that failed often is tried again once it is forgiven. */
export const poolPenaltyMax = 64;

/** A pool member's penalty halves every this long: a failure is forgiven over a minute or so. */
export const poolPenaltyHalfLifeMs = 10_000;

/**
 * How long a draining outlet waits at most for its inlets to hear that it goes (their answer to a ping
 * sent after the go-away) before it refuses new streams: a round trip, with room for a slow one.
 */
export const leaveNoticeMs = 2000;

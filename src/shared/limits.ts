/**
 * Timeouts and defaults that several parts of Portal share: the compiler, which imports nothing from
 * the runtime, quotes some of the node's; the node, the relay and the controller stop, warn and
 * certify alike. Each runtime layer keeps its own in a limits module beside its code (src/wire/,
 * src/node/, src/relay/, src/controller/, src/cli/); every value is declared once, in one of them.
 */

/**
 * How long an outlet's dial of an inlet's direct path may take, every address at once, before the
 * relay is left to carry the inlet. A reachable inlet answers within a round trip; the inlet waits
 * directBudgetMs (src/node/limits.ts) for the dial, so this must stay below it. The guides quote it.
 */
export const directDialBudgetMs = 250;

/**
 * How long a stopping process lets the connections it carries finish when PORTAL_DRAIN_TIMEOUT is
 * not set: enough for requests in flight, short enough that a stop does not look like a hang.
 */
export const defaultDrainMs = 10_000;

/**
 * Time allowed past the drain for closing everything and exiting, before whoever stops the process
 * kills it (see stop-wait.ts).
 */
export const stopMarginMs = 20_000;

/** Certificates are valid from this long before they are issued, for clocks that run behind. */
export const clockSkewMs = 60_000;

/**
 * The lifetime of the self-signed certificates nothing renews: a project's authority and the
 * controller's TLS certificate, which tickets pin. Ten years outlast any deployment.
 */
export const selfSignedLifetimeMs = 10 * 365 * 24 * 3600_000;

/**
 * A warning that would repeat at every attempt (a refused inlet, a member's refused dials, a peer of
 * another version) is logged at most once in this long, with how many times it happened meanwhile:
 * soon enough to be seen, seldom enough not to flood the log.
 */
export const repeatedWarningMs = 60_000;

/**
 * Keys (sources, members) a rate limiter remembers at once, the stalest forgotten first: a flood of
 * new sources costs a bounded amount of memory.
 */
export const rateLimiterKeys = 10_000;

/**
 * How often a process looks at its heap for memory a burst left committed (see memory-reducer.ts):
 * a look costs a few figures, and a burst's heap is given back well within a minute.
 */
export const heapCheckMs = 20_000;

/**
 * How often a data-path process looks at the memory its reads left outside the heap, and the growth
 * that is worth a young-generation collection (see read-buffer-sweep.ts): at 3,000 round trips a
 * second an inlet leaves about 16 MB a tenth of a second, which one such collection frees in well under
 * a millisecond.
 */
export const readBufferCheckMs = 100;
export const readBufferGrowthBytes = 16 * 1024 * 1024;

/**
 * Committed but unused heap worth a forced collection: a burst leaves tens of MB (see
 * memory-reducer.ts), which a few MB of ordinary slack should not trigger.
 */
export const heapSlackBytes = 8 * 1024 * 1024;

/**
 * Relay names one ticket may grant (`portal project ticket --relay` given that many times): an outlet
 * node registers each on every relay, so the bound keeps what one member may register, and the
 * certificate that carries them, small. The CLI and the controller both hold to it.
 */
export const relaysPerTicket = 16;

/**
 * The bounds of a status server (the node's, the controller's, a relay's: see status-server.ts). A
 * scraper or a probe sends one small request at a time on one or two connections, so these are far
 * above what it needs and far below what a local process could make the server hold.
 */
export const statusLimits = {
  /**
   * Connections held at once; past it the oldest one not being answered (idle, or its headers
   * incomplete) gives way to the newcomer.
   */
  connections: 16,
  /** Bytes of a request's line and headers; more earns 431. */
  headerBytes: 8192,
  /** Headers one request may carry. */
  headers: 64,
  /**
   * How long the headers of a request may take: a slow sender is answered 408 and closed. A probe or a
   * scraper on this machine or the next sends them in one packet.
   */
  headersTimeoutMs: 2000,
  /** How long a whole request may take. */
  requestTimeoutMs: 10_000,
  /** How long an idle kept-alive connection stays open between requests. */
  keepAliveMs: 5000,
  /** How often the two timeouts above are checked, so that neither is overrun by more than this. */
  timeoutCheckMs: 500,
  /** Requests one connection may make before it is closed (its client opens another). */
  requestsPerConnection: 1000,
} as const;

/**
 * Outlets one pool may hold: as many as a relay lists to an inlet, an inlet keeps sessions with, and a
 * manifest's outlet.replicas asks for (the schema's maximum, which a test keeps equal).
 */
export const outletPoolMax = 16;

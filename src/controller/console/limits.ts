/** The web console's lifetimes and what its listener lets a client cost. */
export const consoleLimits = {
  /** How long a sign-in link printed by `portal console` stays usable (once). */
  linkMs: 10 * 60_000,
  /** How long a signed-in browser stays signed in. */
  sessionMs: 8 * 3_600_000,
  /** Links one administrator holds at once (used or not, until they expire): a new one ends the oldest. */
  linksPerAdministrator: 8,
  /** Sessions one administrator holds at once: a new sign-in ends the oldest. */
  sessionsPerAdministrator: 16,
  /** Connections the listener holds at once, from anyone; past it new ones are closed at once. */
  connections: 256,
  /** TLS handshakes under way at once (off loopback); past it the oldest gives way to a newcomer. */
  handshakes: 64,
  /** A request's headers must arrive within this; a slow client is cut. */
  headersTimeoutMs: 10_000,
  /** A whole request (a form's body included) must arrive within this. */
  requestTimeoutMs: 30_000,
  /** How often the header and request times are checked. */
  timeoutCheckMs: 1_000,
  /** An idle kept-alive connection is closed after this. */
  keepAliveMs: 5_000,
  /** The largest form body the console reads. */
  bodyBytes: 64 * 1024,
} as const;

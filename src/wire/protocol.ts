/**
 * The wire contract in one place: the protocol version, the first line of every connection, every
 * request and answer of the controller and of a relay, the events they push, and the one-line
 * preambles of the raw connections (relay splices, direct paths). Both ends import these types, so an
 * answer is declared once and a server's handlers are checked against it; the server reads each request
 * through the field table of its operation, and a client each pushed event through the table of that
 * event, so nothing a peer sends reaches a handler unchecked. The tables, and how they are read, are in
 * protocol/fields.ts, re-exported here.
 */
// The first line of every connection and its version.
export * from './protocol/version.ts';
// Requests, answers and pushed events of the controller and of a relay.
export * from './protocol/operations.ts';
// The data plane's contract between an inlet and an outlet: their verdicts and version, then frames.
export * from './protocol/e2e.ts';
export * from './protocol/mux-frame.ts';
// The audit trail's events, reports and records.
export * from './protocol/audit.ts';

/**
 * The most live sessions a member may report: far beyond what a node's connection bounds let it
 * carry, so a larger figure is no count but a peer's invention (and would swamp the controller's sums).
 */
export const maxLiveSessions = 1_000_000;

// Each request and each pushed event is read through the field table of its operation or event.
export {
  controllerEventFields,
  controllerFields,
  parseEvent,
  parseRequest,
  relayEventFields,
  relayFields,
  type EventFields,
  type Fields,
  type ParsedRequest,
} from './protocol/fields.ts';

// Raw connections: one line, then the two nodes' end-to-end TLS, which nothing in between reads.
export * from './protocol/preambles.ts';

/**
 * Every stable error code of Portal, each said once with what it means. Users and scripts match these
 * codes (and the CLI's exit code follows the error's class), so a code is added here, never invented
 * where it is thrown: `PortalError` takes an `ErrorCode`, and a code outside this list does not compile.
 */
export const errorCodes = [
  // Command lines, environment and input files.
  /** A command-line flag is missing, unknown, or out of its range, or flags that go together do not. */
  'BAD_FLAG',
  /** An environment variable Portal reads holds a value it cannot use. */
  'BAD_ENVIRONMENT',
  /** `--jq` was given something other than a plain path such as `.inlets[0].from`. */
  'BAD_JQ_PATH',
  /** A command that removes state was run without `--yes`. */
  'CONFIRMATION_NEEDED',
  /** An input file has problems; the error lists every one with its file, line and JSON pointer. */
  'INVALID_INPUT',
  /** The use-case manifest cannot be read. */
  'MANIFEST_UNREADABLE',
  /** The node configuration file cannot be read. */
  'CONFIGURATION_UNREADABLE',
  /** A reload was asked of a node started with its configuration inline: it has no file to read again. */
  'CONFIGURATION_INLINE',
  /** The compiler cannot create its output folder. */
  'OUTPUT_NOT_WRITABLE',
  /** The Handlebars templates are not beside the installed Portal package: the installation is broken. */
  'TEMPLATES_MISSING',
  /** The portal program running this command cannot be located, so no service unit can name it. */
  'PROGRAM_UNKNOWN',
  /** The portal program or Node.js lies where a service unit's sandbox hides it (ProtectHome=, PrivateTmp=). */
  'PROGRAM_HIDDEN',
  /** A service unit of that name exists already. */
  'UNIT_EXISTS',
  /** The service unit cannot be written. */
  'UNIT_UNWRITABLE',

  // A PORTAL_HOME and the processes that use it.
  /** Another process (node, relay or embedded controller) runs with this PORTAL_HOME already. */
  'ALREADY_RUNNING',
  /** This PORTAL_HOME holds an administrator already, so the enrollment options given would be ignored. */
  'ALREADY_ENROLLED',
  /** `portal reset` would remove the identity of a process that is running. */
  'HOME_IN_USE',
  /**
   * `portal reset` would delete an embedded controller that hosts other projects, active members or
   * unused tickets, and no terminal could confirm it: `--delete-controller` does. Nothing was removed.
   */
  'CONTROLLER_IN_USE',
  /** `portal reset` may not stop a process of another user. */
  'NOT_PERMITTED',
  /** A process did not stop within its time after SIGTERM; nothing was removed. */
  'STOP_TIMED_OUT',
  /** The embedded controller could not be stopped. */
  'STOP_FAILED',
  /** This machine is not the administrator of a project: `portal enroll` has not run here. */
  'NOT_ENROLLED',
  /** A node has no identity yet and was given no enrollment ticket. */
  'NO_IDENTITY',
  /** The identity stored in PORTAL_HOME cannot be read or does not hold together. */
  'IDENTITY_DAMAGED',
  /** A listener (inlet, direct path, status server) cannot listen on its address. */
  'ADDRESS_IN_USE',
  /** The address the inlet's direct path listens on (`tcp-inlet.direct`) is not host:port. */
  'DIRECT_ADDRESS',
  /** `portal node show` found the node not running or not answering, or none of its portals serving. */
  'NODE_DOWN',
  /** `portal node show`: some of the node's portals carry traffic and others cannot. */
  'NODE_DEGRADED',
  /** `portal node show`: the node was revoked from its project and carries nothing any more. */
  'NODE_REVOKED',

  // Tickets, admin codes and enrollment.
  /** The enrollment ticket cannot be read from its file or standard input. */
  'TICKET_UNREADABLE',
  /** The ticket file or standard input holds no ticket. */
  'TICKET_EMPTY',
  /** The ticket is cut short or changed. */
  'TICKET_MALFORMED',
  /** The admin code is cut short or changed. */
  'ADMIN_CODE_MALFORMED',
  /** The controller did not issue this ticket. */
  'TICKET_UNKNOWN',
  /** The ticket expired before it was used. */
  'TICKET_EXPIRED',
  /** The ticket allows no more enrollments. */
  'TICKET_CONSUMED',
  /** The admin code is unknown to the controller, used already, or expired. */
  'ADMIN_CODE_INVALID',
  /** The ticket is for another kind of node than this configuration (a relay's, or an outlet's for an inlet). */
  'WRONG_TICKET',
  /** The ticket or identity does not grant the relay the outlet registers for. */
  'RELAY_NOT_GRANTED',
  /** The ticket or identity grants no TLS server certificate, and the inlet serves TLS. */
  'TLS_NOT_GRANTED',
  /** A relay was started with a ticket that does not grant the relay role. */
  'NOT_A_RELAY_TICKET',
  /** An identity, or a member of the project, is not a relay node's. */
  'NOT_A_RELAY',

  // Requests to the controller and the relays, and their answers.
  /** The controller or relay did not accept this node's certificate (expired, or another project's). */
  'NOT_AUTHENTICATED',
  /** The node is not a member of the project any more. */
  'NOT_A_MEMBER',
  /** Only the project administrator may do this. */
  'NOT_ADMIN',
  /** The controller asked for a console sign-in link serves no web console. */
  'CONSOLE_OFF',
  /** The controller has no project of that id. */
  'PROJECT_UNKNOWN',
  /** A certificate request is not a PKCS#10 request signed by its own key. */
  'REQUEST_INVALID',
  /** A request carries a value the service cannot take (an address, a fingerprint). */
  'BAD_REQUEST',
  /** A re-issue request carries no fresh challenge from this controller. */
  'CHALLENGE_UNKNOWN',
  /** The controller refuses a new certificate for this node. */
  'REISSUE_REFUSED',
  /** Too many requests of one kind in a short time. */
  'RATE_LIMITED',
  /** The project has as many direct paths advertised as it may have. */
  'TOO_MANY_INLETS',
  /** The project has as many relays as it may have. */
  'TOO_MANY_RELAYS',
  /** The service does not know the operation asked for (a client of another version). */
  'UNKNOWN_OPERATION',
  /** The service failed to answer for a reason of its own; its log says which. */
  'INTERNAL',
  /** Client and service speak different protocol versions; the message names both. */
  'PROTOCOL_VERSION',
  /** So many requests wait for their answers that a new one was not sent. */
  'TOO_MANY_PENDING_REQUESTS',
  /** The service refused a request with an answer that carries no code this Portal knows. */
  'CONTROLLER_ERROR',

  // Reaching the controller and the relays.
  /** The controller address is not host:port. */
  'CONTROLLER_ADDRESS',
  /** The controller cannot be reached (no connection, no answer, or the connection closed at once). */
  'CONTROLLER_UNREACHABLE',
  /** The server at the controller's address is not the controller the ticket names. */
  'CONTROLLER_MISMATCH',
  /** The controller did not answer a request in time. */
  'CONTROLLER_TIMEOUT',
  /** The connection to the controller closed while requests waited for answers. */
  'CONTROLLER_LOST',
  /** A relay address is not host:port. */
  'RELAY_ADDRESS',
  /** A relay cannot be reached, on its control port or for a splice. */
  'RELAY_UNREACHABLE',
  /** The server at a relay's address is not the relay the controller named. */
  'RELAY_MISMATCH',
  /** A relay did not answer a request in time. */
  'RELAY_TIMEOUT',
  /** The connection to a relay closed while requests waited for answers. */
  'RELAY_LOST',

  // Sessions between inlets and outlets, through relays or direct.
  /** No outlet is registered on the relay for that relay name right now. */
  'RELAY_UNAVAILABLE',
  /** The outlet of a pool an inlet asked for by name is not registered on that relay now. */
  'OUTLET_NOT_HERE',
  /** A member connection watches as many relay names as it may. */
  'TOO_MANY_WATCHES',
  /** The relay has too many splices of this node waiting. */
  'RELAY_BUSY',
  /** A relay gave no session within the inlet's budget. */
  'RELAY_STALLED',
  /** An outlet's registration does not say which attribute it allows. */
  'ALLOW_MISSING',
  /** A peer's attribute is not the one allowed, on this side or the other. */
  'PEER_NOT_ALLOWED',
  /** A peer's certificate expired and no renewed one reached this node: its connections were closed. */
  'PEER_CERTIFICATE_EXPIRED',
  /** A renewed certificate a peer sent on a session is not one this node accepts: the session was closed. */
  'CREDENTIAL_REFUSED',
  /** The end-to-end TLS or the exchange of verdicts with the peer failed. */
  'SESSION_FAILED',
  /** A TLS handshake did not finish: the peer left, or took too long. */
  'TLS_HANDSHAKE_FAILED',
  /** A session's peer went silent for longer than the heartbeat allows. */
  'HEARTBEAT_LOST',
  /** A peer sent a line that is not JSON where JSON lines were expected. */
  'JSON_LINE_INVALID',
  /** A peer sent a line longer than the bound on one JSON line. */
  'JSON_LINE_TOO_LONG',
  /** A peer left more answers unread than the bound allows, and its connection was closed. */
  'PEER_NOT_READING',
  /** The connection closed, or the time ran out, before the line awaited arrived. */
  'ANSWER_MISSING',
  // The multiplexer's (src/wire/mux/).
  /** The outlet refused a stream (its target, its bounds), or the session could not open one. */
  'STREAM_REFUSED',
  /** The client left before the outlet answered its stream. */
  'CLIENT_LEFT',
  /** The session closed: its connection ended, or one side closed it. */
  'SESSION_CLOSED',
  /** The peer broke the session protocol (a malformed frame, bytes beyond a window, unread answers). */
  'SESSION_PROTOCOL_ERROR',
  /** The peer is leaving the session and takes no new streams on it. */
  'SESSION_GONE_AWAY',
  /** This side closed the session because something in it failed that is not the peer's fault. */
  'SESSION_INTERNAL_ERROR',
  /** A multiplexer window given in the options is not a whole number of bytes within the protocol's range. */
  'MUX_WINDOW_INVALID',

  // The controller's data, backups and keys.
  /** The embedded controller did not start. */
  'CONTROLLER_START_FAILED',
  /** The store named is not one this controller can use for this purpose. */
  'STORE_UNSUPPORTED',
  /** A `--store` URL cannot be used as written: malformed, holding a password, or with an unknown sslmode. */
  'STORE_URL_INVALID',
  /** The controller's PostgreSQL store cannot be reached, or refused the controller's login. */
  'STORE_UNREACHABLE',
  /** The controller's store holds data that cannot be read back (a sealed key that does not open). */
  'STORE_DAMAGED',
  /**
   * The SQLite store was moved to PostgreSQL by `portal controller migrate-store`: no controller starts on it,
   * and it is not moved again, until its `.moved` file is removed on purpose.
   */
  'STORE_MOVED',
  /** `portal controller migrate-store` found a controller running on the store it was to move. */
  'STORE_IN_USE',
  /** The store's schema is a later release's that dropped what this version reads (a contraction). */
  'STORE_TOO_NEW',
  /** `portal project audit --verify` found the audit trail's hash chain broken: a record was changed or removed. */
  'AUDIT_CHAIN_BROKEN',
  /** The checkpoint given to `portal project audit --verify --checkpoint` is none, or none can be made yet. */
  'AUDIT_CHECKPOINT_INVALID',
  /** There is no controller data where it was looked for. */
  'NO_CONTROLLER_DATA',
  /** The controller's data directory cannot be read. */
  'DATA_DIR_UNREADABLE',
  /** A restore was pointed at a data directory that holds something already. */
  'DATA_DIR_NOT_EMPTY',
  /** The backup could not be made. */
  'BACKUP_FAILED',
  /** The file is not a whole backup of a Portal controller. */
  'BACKUP_INVALID',
  /** The backup file cannot be read. */
  'BACKUP_UNREADABLE',
  /** The backup file cannot be written. */
  'BACKUP_UNWRITABLE',
  /** The backup is of a format this Portal does not read. */
  'BACKUP_VERSION',
  /** A byte of the backup changed after it was written (it fails its authentication under the sealing key). */
  'BACKUP_TAMPERED',
  /** The backup was written before backups were authenticated: nothing proves it unchanged. */
  'BACKUP_UNAUTHENTICATED',
  /** The sealing key file named does not exist. */
  'SEALING_KEY_MISSING',
  /** The sealing key material is shorter than the minimum. */
  'SEALING_KEY_TOO_SHORT',
  /** The sealing key file cannot be read. */
  'SEALING_KEY_UNREADABLE',
  /** The sealing key file cannot be created. */
  'SEALING_KEY_UNWRITABLE',
  /** The sealing key does not open what it is said to seal. */
  'SEALING_KEY_WRONG',
  /** The sealing key file lies beside the state it seals. */
  'SEALING_KEY_BESIDE_STATE',
  /** A service's TLS key or certificate file is damaged. */
  'TLS_KEY_DAMAGED',
  /** A service's TLS key file cannot be read. */
  'TLS_KEY_UNREADABLE',

  // Members and their revocation.
  /** The project has no member of that id. */
  'MEMBER_UNKNOWN',
  /** The member was revoked from the project: it is refused everywhere and never certified again. */
  'MEMBER_REVOKED',
  /** The administrator named is the project's last one, and a project always keeps one. */
  'LAST_ADMINISTRATOR',
  /** An administrator asked to revoke itself: another administrator does that. */
  'SELF_REVOCATION',
  /** Relay names were to be granted to a member that registers no outlet: a relay node or an administrator. */
  'GRANT_REFUSED',
  /** An administrator cancelled the ticket before it was used. */
  'TICKET_CANCELLED',
  /** A node or relay refused a peer that was revoked from the project. */
  'PEER_REVOKED',
  /** The node's list of revoked members is older than its revocation-max-age: it opens no new session. */
  'REVOCATIONS_STALE',

  // The benchmark scripts (scripts/bench/).
  /** A benchmark setting is not a value the benchmark can run with. */
  'BAD_SETTING',
  /** A program the benchmark needs is not installed. */
  'PREREQUISITE_MISSING',
  /** The Node.js the nodes are measured on could not be fetched from the npm registry. */
  'NODE_NOT_FETCHED',

  // Attribute policies (src/shared/policy.ts).
  /** An allow expression does not read: the message gives the column and what was expected there. */
  'POLICY_INVALID',
] as const;

export type ErrorCode = (typeof errorCodes)[number];

const known: ReadonlySet<string> = new Set(errorCodes);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && known.has(value);
}

/**
 * A code that arrived from elsewhere (a service's answer on the wire): itself when this Portal knows
 * it, `fallback` otherwise, so that no unchecked string becomes an error's code.
 */
export function knownCode(value: unknown, fallback: ErrorCode): ErrorCode {
  return isErrorCode(value) ? value : fallback;
}

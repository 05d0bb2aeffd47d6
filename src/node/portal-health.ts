/**
 * Each portal's health, and the node's from them: the one rule that GET /show, GET /readyz, `portal
 * node show` and the compiled probes follow, so that one dead target takes down its own portal and no
 * other. Pure.
 *
 * A portal is `down` when something stops it carrying traffic (its lines in `problems`), `degraded`
 * when something went wrong lately without stopping it (`warnings`), `up` otherwise. The node is:
 * - `revoked`: its project revoked it; it carries nothing and retries nothing;
 * - `up`: nothing in its way, node-wide or in any portal;
 * - `degraded`: something in its way, and at least one portal still serving (up or degraded);
 * - `down`: no portal serving, once the node has been up; `starting` before it first was.
 * It is ready (GET /readyz answers 200, `node show --ready` exits 0) when it is up or degraded.
 */

export type PortalState = 'up' | 'degraded' | 'down';

export type NodeState = 'starting' | 'up' | 'degraded' | 'down' | 'revoked';

export interface PortalHealth {
  readonly kind: 'outlet' | 'inlet';
  readonly name: string;
  /** The JSON pointer of the portal's definition in the configuration. */
  readonly configured_at: string;
  readonly state: PortalState;
  /** What stops this portal carrying traffic, one line each; none unless it is down. */
  readonly problems: readonly string[];
  /** What went wrong lately without stopping it. */
  readonly warnings: readonly string[];
}

export function portalState(problems: readonly string[], warnings: readonly string[]): PortalState {
  if (problems.length > 0) return 'down';
  return warnings.length > 0 ? 'degraded' : 'up';
}

export interface NodeStateFacts {
  readonly revoked: boolean;
  /** Every problem of the node: its own and its portals'. */
  readonly problems: readonly string[];
  readonly portals: readonly PortalHealth[];
  /** Whether the node has been up since it started. */
  readonly announced: boolean;
}

export function nodeState(facts: NodeStateFacts): NodeState {
  if (facts.revoked) return 'revoked';
  if (facts.problems.length === 0) return 'up';
  if (facts.portals.some((portal) => portal.state !== 'down')) return 'degraded';
  return facts.announced ? 'down' : 'starting';
}

/** Whether a node in this state should be sent traffic: it serves at least one of its portals. */
export const isReady = (state: NodeState | 'enrolling'): boolean => state === 'up' || state === 'degraded';

/** "2 of 3 portals" serving, for a node that is degraded. */
export function servingCount(portals: readonly PortalHealth[]): { serving: number; total: number } {
  return { serving: portals.filter((portal) => portal.state !== 'down').length, total: portals.length };
}

/**
 * The node as GET /show gives it: one shape, produced by the running node and read by `node show` and
 * the status loop. `status` is "up" only when nothing stops the node or any portal carrying traffic;
 * otherwise `problems` says, one line each, what stops it; `warnings` says what went wrong lately
 * without stopping it; `portals` gives each portal's share, and the node's status follows from them
 * (portal-health.ts). Which problems and warnings there are is decided here, from facts, with no I/O.
 */
import { plural } from '../shared/plural.ts';
import { quotedPolicy } from '../shared/policy.ts';
import type { StreakShow } from './failure-streak.ts';
import { recentMs } from './limits.ts';
import type { Inlet, SessionFailureShow } from './inlet.ts';
import type { Outlet } from './outlet.ts';
import type { RelayShow } from './types.ts';
import { portalState, type NodeState, type PortalHealth } from './portal-health.ts';
import { portalLabel } from './portals.ts';
import type { RefusalShow } from './refusals.ts';
import type { ReloadShow } from './reload-show.ts';

export type InletShow = ReturnType<Inlet['describe']>;
export type OutletShow = ReturnType<Outlet['describe']>;
export type { ReloadOutcome, ReloadShow } from './reload-show.ts';

/** Before the node has an identity and its parts: enrolling (with a ticket) or loading one. */
export interface NodeShowEarly {
  readonly status: 'enrolling' | 'starting';
  readonly version: string;
  readonly problems: readonly string[];
}

export interface NodeShowRunning {
  /**
   * The node's state by the rule of portal-health.ts: "up", "degraded" (some portals serve, some do
   * not), "down" (none serves), "starting" until it has first been up, "revoked" for good.
   */
  readonly status: NodeState;
  /** Every reason the node or one of its portals cannot carry traffic, one line each. */
  readonly problems: readonly string[];
  /**
   * What went wrong lately but does not stop the node carrying traffic (a relay that failed while another
   * carries it).
   */
  readonly warnings: readonly string[];
  readonly name: string;
  readonly version: string;
  readonly uptime_seconds: number;
  readonly identity: {
    readonly node_id: string;
    readonly attributes: readonly string[];
    readonly relays: readonly string[];
    readonly valid_until: string;
    readonly expired: boolean;
  };
  readonly project: { readonly id: string; readonly controller: string; readonly network_domain: string };
  readonly controller: 'connected' | 'reconnecting';
  /** Each portal's state, with what stops it or went wrong lately: outlets, then inlets. */
  readonly portals: readonly PortalHealth[];
  /** Every outlet and inlet, each with its portal's name, in the configuration's order. */
  readonly outlets: readonly OutletShow[];
  readonly inlets: readonly InletShow[];
  /** The relays of the project and this node's connection to each. */
  readonly relays: readonly RelayShow[];
  /** How many times the configuration was reloaded, and how the last reload went. */
  readonly reload: ReloadShow;
}

export type { RelayShow } from './types.ts';

export type NodeShow = NodeShowEarly | NodeShowRunning;

export interface NodeFacts {
  readonly now: number;
  /** When the node's certificate expires (epoch ms). */
  readonly validUntil: number;
  /** Why the last renewal or re-issue failed, while the certificate is not fresh. */
  readonly renewalError: string | undefined;
  readonly controller: string;
  readonly controllerConnected: boolean;
  readonly relays: readonly RelayShow[];
  readonly outlets: readonly OutletShow[];
  readonly inlets: readonly InletShow[];
}

/** What stops the node from carrying traffic, one line each; none when it can. */
export function problemsOf(facts: NodeFacts): string[] {
  return assessNode(facts).problems;
}

export interface NodeAssessment {
  /** What stops the node or one of its portals carrying traffic, one line each (a portal's begins with it). */
  readonly problems: string[];
  /** What went wrong lately without stopping anything. */
  readonly warnings: string[];
  /** Each portal's own state and lines, in the configuration's order: outlets, then inlets. */
  readonly portals: PortalHealth[];
}

/**
 * `problems`: what stops the node or a portal from carrying traffic (it is "up" when there is none);
 * `warnings`: what went wrong lately without stopping it; `portals`: each portal's share of them.
 */
export function assessNode(facts: NodeFacts): NodeAssessment {
  const problems: string[] = [];
  const warnings: string[] = [];
  const { now, outlets, inlets } = facts;
  const expired = now >= facts.validUntil;
  // Lines that stop every portal at once: each portal carries them too.
  const everyPortal: string[] = [];
  if (expired) {
    const why = facts.renewalError ? ` (${facts.renewalError})` : '';
    everyPortal.push(
      `its certificate expired at ${new Date(facts.validUntil).toISOString()} and has not been renewed yet${why}`,
    );
  }
  problems.push(...everyPortal);
  // The controller is off the data path: while the node's certificate is valid and a relay is known,
  // traffic flows without it. It matters when the certificate must be re-issued, or no relay is known.
  if (!facts.controllerConnected && (expired || facts.relays.length === 0))
    problems.push(`the controller ${facts.controller} is unreachable`);
  if (facts.relays.length === 0 && facts.controllerConnected)
    problems.push('the controller knows no relay of the project: start one with portal relay start');
  // A part that carries its traffic on the direct path needs no relay for it.
  const outletDirect = (outlet: OutletShow) => outlet.sessions_direct > 0;
  const allDirect =
    outlets.length + inlets.length > 0 &&
    inlets.every((inlet) => inlet.session === 'open' && inlet.path === 'direct') &&
    outlets.every(outletDirect);
  const connected = facts.relays.filter((relay) => relay.status === 'connected');
  if (facts.relays.length > 0 && connected.length === 0) {
    (allDirect ? warnings : problems).push(
      `no relay of the project is reachable (${facts.relays.map((relay) => relay.address).join(', ')})`,
    );
  }
  if (connected.length > 0) {
    for (const relay of facts.relays)
      if (relay.status === 'reconnecting')
        warnings.push(`relay ${relay.id} at ${relay.address} is unreachable (reconnecting); the others carry the node`);
  }
  const portals: PortalHealth[] = [];
  const assessed = (kind: 'outlet' | 'inlet', part: { name: string; configured_at: string }, assess: Assess) => {
    const own = { problems: [...everyPortal], warnings: [] as string[] };
    assess(pushTo(own.problems), pushTo(own.warnings));
    const label = portalLabel(kind, { name: part.name, pointer: part.configured_at });
    // Lines about a portal given by name begin with it ("inlet postgres: "); those of the single forms as they were.
    const said = (line: string) => (label === kind ? line : `${label}: ${line}`);
    problems.push(...own.problems.slice(everyPortal.length).map(said));
    warnings.push(...own.warnings.map(said));
    portals.push({
      kind,
      name: part.name,
      configured_at: part.configured_at,
      state: portalState(own.problems, own.warnings),
      problems: own.problems,
      warnings: own.warnings,
    });
  };
  for (const outlet of outlets)
    assessed('outlet', outlet, (own, ownWarnings) => assessOutlet(outlet, now, outletDirect(outlet), own, ownWarnings));
  for (const inlet of inlets) assessed('inlet', inlet, (own, ownWarnings) => assessInlet(inlet, now, own, ownWarnings));
  return { problems, warnings, portals };
}

type Assess = (problems: Lines, warnings: Lines) => void;

const pushTo = (lines: string[]): Lines => ({ push: (line) => lines.push(line) });

interface Lines {
  push(line: string): void;
}

function assessOutlet(outlet: OutletShow, now: number, direct: boolean, problems: Lines, warnings: Lines): void {
  if (outlet.status !== 'up') {
    const line =
      `its outlet is not registered on any relay as "${outlet.relay}"` +
      `${outlet.status === 'failed' ? ' (the relay refused it)' : ''}`;
    // Inlets that reach it directly are served; others, which need a relay to find it, are not.
    if (direct) warnings.push(`${line}; inlets reach it on the direct path only`);
    else problems.push(line);
  }
  const failures = recent(outlet.target_failures, now);
  if (failures)
    problems.push(
      `the ${targetFailure(outlet.to, failures.count, failures.reason)}, last ${ago(now, failures.last_at)}`,
    );
  // Refused members stop the portal when nobody is served; beside open sessions they are strangers.
  for (const refusal of outlet.refusals) {
    if (!recent(refusal, now)) continue;
    (outlet.sessions === 0 ? problems : warnings).push(describeRefusal(refusal, now));
  }
}

function assessInlet(inlet: InletShow, now: number, problems: Lines, warnings: Lines): void {
  const where = inlet.listening ?? inlet.from;
  if (inlet.session !== 'open') {
    const state = inlet.session === 'opening' && !inlet.session_failure ? 'opening one' : 'retrying';
    const why = inlet.session_failure ? `: ${sessionFailure(inlet.session_failure, inlet.via)}` : '';
    problems.push(`its inlet on ${where} has no session to relay "${inlet.via}" (${state})${why}`);
  }
  const refused = recent(inlet.refused_by_outlet, now);
  if (refused) {
    const clients = refused.count === 1 ? 'last client' : `last ${refused.count} clients`;
    problems.push(`the outlet refused its inlet's ${clients} (${refused.reason}), last ${ago(now, refused.last_at)}`);
  }
  // An outlet of its pool without a session, while another carries the clients.
  if (inlet.session === 'open')
    for (const member of inlet.outlets.filter((member) => member.session !== 'open'))
      warnings.push(
        `its inlet on ${where} has no session to outlet ${member.outlet ?? '?'} of the pool of relay "${inlet.via}" ` +
          `(${member.session === 'opening' ? 'opening one' : 'retrying'}); the others carry its clients`,
      );
  for (const relay of inlet.relays_failed) {
    const left = Math.max(1, Math.round((Date.parse(relay.until) - now) / 1000));
    warnings.push(
      `relay ${relay.id} failed the inlet ${relay.failures === 1 ? 'once' : `${relay.failures} times in a row`} ` +
        `(${relay.reason}); it is tried after the others for ${left} s more`,
    );
  }
}

/** A streak or refusal still recent at `now`, or undefined. */
function recent<T extends StreakShow | RefusalShow>(fact: T | null, now: number): T | undefined {
  return fact && now - Date.parse(fact.last_at) < recentMs ? fact : undefined;
}

/** "target 127.0.0.1:28080 refused its last 3 connections (ECONNREFUSED)", worded by the error code. */
function targetFailure(to: string, count: number, code: string): string {
  const last = count === 1 ? 'its last connection' : `its last ${count} connections`;
  if (code === 'ECONNREFUSED') return `target ${to} refused ${last} (${code})`;
  if (code === 'ETIMEDOUT') return `target ${to} did not answer ${last} (${code})`;
  if (code.startsWith('ERR_TLS_CERT') || /CERT|SELF_SIGNED|UNABLE_TO/.test(code))
    return `TLS certificate of target ${to} did not verify on ${last} (${code})`;
  return `target ${to} could not be reached on ${last} (${code})`;
}

function sessionFailure(failure: SessionFailureShow, via: string): string {
  const { refusal } = failure;
  if (refusal?.by === 'this node')
    return `its allow refused the outlet: saw ${attributes(refusal.saw)}, allow is ${quotedPolicy(refusal.allow)}`;
  if (refusal)
    return `the outlet refused it: it saw ${attributes(refusal.saw)}, its allow is ${quotedPolicy(refusal.allow)}`;
  switch (failure.reason) {
    case 'peer_refused':
      return `the relay refused it: ${failure.message}`;
    case 'no_outlet':
      return `${failure.message}; check that the outlet runs and that via "${via}" is its relay name`;
    case 'session_failed':
      return `the end-to-end session failed: ${failure.message}`;
    default:
      return failure.message;
  }
}

function describeRefusal(refusal: RefusalShow, now: number): string {
  const peer = refusal.peer ? `inlet node ${refusal.peer}` : 'an inlet';
  const when = `${plural(refusal.count, 'time')}, last ${ago(now, refusal.last_at)}`;
  const allow = quotedPolicy(refusal.allow);
  if (refusal.by === 'the peer')
    return `${peer} refused its outlet: it saw ${attributes(refusal.saw)}, its allow is ${allow} (${when})`;
  const teller = refusal.told_by === 'relay' ? ', at the relay' : '';
  return `its outlet refused ${peer}: saw ${attributes(refusal.saw)}, allow is ${allow} (${when}${teller})`;
}

const attributes = (seen: readonly string[]) =>
  seen.length === 0 ? 'no attribute' : seen.map((attribute) => `"${attribute}"`).join(', ');

function ago(now: number, at: string): string {
  const seconds = Math.round((now - Date.parse(at)) / 1000);
  if (seconds < 1) return 'less than 1 s ago';
  return seconds < 120 ? `${seconds} s ago` : `${Math.round(seconds / 60)} min ago`;
}

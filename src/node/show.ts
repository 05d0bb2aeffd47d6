/**
 * The node as GET /show gives it: one shape, produced by the running node and read by `node show` and
 * the status loop. `status` is "up" only when the node can carry traffic; otherwise `problems` says,
 * one line each, what stops it. Which problems there are is decided here, from facts, with no I/O.
 */
import type { Inlet } from './inlet.ts';
import type { Outlet } from './outlet.ts';

export type InletShow = ReturnType<Inlet['describe']>;
export type OutletShow = ReturnType<Outlet['describe']>;

/** Before the node has an identity and its parts: enrolling (with a ticket) or loading one. */
export interface NodeShowEarly {
  readonly status: 'enrolling' | 'starting';
  readonly version: string;
  readonly problems: readonly string[];
}

export interface NodeShowRunning {
  /** "starting" until the node has first been up; "down" when it was up and no longer can carry traffic. */
  readonly status: 'starting' | 'up' | 'down';
  readonly problems: readonly string[];
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
  readonly outlets: readonly OutletShow[];
  readonly inlets: readonly InletShow[];
  /** The relays of the project and this node's connection to each. */
  readonly relays: readonly RelayShow[];
}

export interface RelayShow {
  readonly id: string;
  readonly address: string;
  /** "waiting": on the project's list, not holding one of the node's relay connections right now. */
  readonly status: 'connected' | 'reconnecting' | 'waiting';
}

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
  readonly outlet: OutletShow | undefined;
  readonly inlet: InletShow | undefined;
}

/** What stops the node from carrying traffic, one line each; none when it can. */
export function problemsOf(facts: NodeFacts): string[] {
  const problems: string[] = [];
  if (facts.now >= facts.validUntil) {
    const why = facts.renewalError ? ` (${facts.renewalError})` : '';
    problems.push(`its certificate expired at ${new Date(facts.validUntil).toISOString()} and has not been renewed yet${why}`);
  }
  const expired = facts.now >= facts.validUntil;
  // The controller is off the data path: while the node's certificate is valid and a relay is known,
  // traffic flows without it. It matters when the certificate must be re-issued, or no relay is known.
  if (!facts.controllerConnected && (expired || facts.relays.length === 0)) problems.push(`the controller ${facts.controller} is unreachable`);
  if (facts.relays.length === 0 && facts.controllerConnected) problems.push('the controller knows no relay of the project: start one with portal relay start');
  if (facts.relays.length > 0 && !facts.relays.some((relay) => relay.status === 'connected')) {
    problems.push(`no relay of the project is reachable (${facts.relays.map((relay) => relay.address).join(', ')})`);
  }
  if (facts.outlet && facts.outlet.status !== 'up') {
    problems.push(`its outlet is not registered on any relay as "${facts.outlet.relay}"${facts.outlet.status === 'failed' ? ' (the relay refused it)' : ''}`);
  }
  if (facts.inlet && facts.inlet.session !== 'open') {
    const state = facts.inlet.session === 'opening' ? 'opening one' : 'retrying';
    problems.push(`its inlet on ${facts.inlet.listening ?? facts.inlet.from} has no session to relay "${facts.inlet.via}" (${state})`);
  }
  return problems;
}

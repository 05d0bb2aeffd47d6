/**
 * What nodes report their portals carry (`portal-report`), kept for as long as the reporting
 * connection lasts: the web console's live overview. Replicas share them (shared-kinds.ts), at most
 * once a second per project, so a project whose bytes move costs the store one write a second, not
 * one per report. Bounded per report and per project.
 */
import { InputError, printable } from '../shared/errors.ts';
import type { PortalPeer, PortalReport, RequestOf, ControllerOperations } from '../wire/protocol.ts';
import type { PeerIdentity } from '../pki/identity.ts';
import { portalReportBounds } from '../wire/limits.ts';

/** Nodes one project may have reporting (what one report holds: portalReportBounds). */
const nodesReportingMost = 4096;
/** The most often other replicas hear of one project's reports. */
export const portalsShareMs = 1000;

/** One node's portals, as it last reported them. */
export interface NodePortalReport {
  readonly node: string;
  /** When the controller took the report (ms since the epoch). */
  readonly at: number;
  readonly portals: readonly PortalReport[];
}

const shortText = (text: string, most = 120) => printable(text.slice(0, most));
const count = (value: number) => (Number.isSafeInteger(value) && value >= 0 ? value : 0);
/** A time a node says: 0 (unknown) unless it is before tomorrow, so that any page can show it as a date. */
const time = (value: number) => (count(value) <= Date.now() + 86_400_000 ? count(value) : 0);

/** A report as the controller keeps it: bounded, every text printable, every count an integer. */
export function readPortalReport(portals: readonly PortalReport[]): PortalReport[] {
  if (portals.length > portalReportBounds.portals)
    throw new InputError('BAD_REQUEST', `a node reported ${portals.length} portals`, {
      hint: `a report holds at most ${portalReportBounds.portals} portals`,
    });
  return portals
    .filter((portal) => portal.part === 'inlet' || portal.part === 'outlet')
    .map((portal) => ({
      part: portal.part,
      name: shortText(portal.name, 64),
      relay: shortText(portal.relay, 64),
      status: shortText(portal.status, 16),
      since: time(portal.since),
      open: count(portal.open),
      total: count(portal.total),
      up: count(portal.up),
      down: count(portal.down),
      peers: portal.peers.slice(0, portalReportBounds.peers).map((peer): PortalPeer => ({
        node: shortText(peer.node),
        path: shortText(peer.path),
        open: count(peer.open),
      })),
    }));
}

export class PortalReports {
  private readonly here = new Map<string, Map<string, NodePortalReport>>();
  private readonly elsewhere = new Map<string, readonly NodePortalReport[]>();
  private readonly listeners = new Set<(projectId: string) => void>();
  /** Per project: when the others last heard, and the telling that waits its turn. */
  private readonly told = new Map<string, { at: number; timer: NodeJS.Timeout | undefined }>();

  /** Keeps `report` as its node's; false when the project has as many nodes reporting as it may. */
  set(projectId: string, report: NodePortalReport): boolean {
    const reports = this.here.get(projectId) ?? new Map<string, NodePortalReport>();
    if (!reports.has(report.node) && reports.size >= nodesReportingMost) return false;
    reports.set(report.node, report);
    this.here.set(projectId, reports);
    this.changedHere(projectId);
    return true;
  }

  /** Drops `report` unless a newer one of its node replaced it. */
  remove(projectId: string, report: NodePortalReport): void {
    const reports = this.here.get(projectId);
    if (reports?.get(report.node) !== report) return;
    reports.delete(report.node);
    if (reports.size === 0) this.here.delete(projectId);
    this.changedHere(projectId);
  }

  /** Every node's report in `projectId`, those made to other replicas included, by node id. */
  of(projectId: string): NodePortalReport[] {
    const here = this.here.get(projectId) ?? new Map<string, NodePortalReport>();
    const there = (this.elsewhere.get(projectId) ?? []).filter((report) => !here.has(report.node));
    return [...here.values(), ...there].sort((a, b) => a.node.localeCompare(b.node));
  }

  heldHere(projectId: string): NodePortalReport[] {
    return [...(this.here.get(projectId)?.values() ?? [])];
  }

  projectsHere(): string[] {
    return [...this.here.keys()];
  }

  setElsewhere(projectId: string, reports: readonly NodePortalReport[]): void {
    if (reports.length === 0) this.elsewhere.delete(projectId);
    else this.elsewhere.set(projectId, reports.slice(0, nodesReportingMost));
  }

  projectsElsewhere(): string[] {
    return [...this.elsewhere.keys()];
  }

  onChangedHere(listener: (projectId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops the tellings that wait their turn. */
  stop(): void {
    for (const { timer } of this.told.values()) clearTimeout(timer);
    this.told.clear();
  }

  /** Tells the listeners now, or once portalsShareMs has passed since it last did. */
  private changedHere(projectId: string): void {
    const told = this.told.get(projectId) ?? { at: 0, timer: undefined };
    this.told.set(projectId, told);
    if (told.timer) return;
    const tell = () => {
      told.timer = undefined;
      told.at = Date.now();
      for (const listener of this.listeners) listener(projectId);
    };
    const wait = told.at + portalsShareMs - Date.now();
    if (wait <= 0) tell();
    else {
      told.timer = setTimeout(tell, wait);
      told.timer.unref();
    }
  }
}

/** What a connection reported, as its closing drops it. */
export interface ReportingConnection {
  dropReport: (() => void) | undefined;
}

/** A node's `portal-report`: kept as its node's while this connection lasts. */
export function takePortalReport(
  reports: PortalReports,
  connection: ReportingConnection,
  peer: PeerIdentity,
  body: RequestOf<ControllerOperations, 'portal-report'>,
): Record<string, never> {
  const report: NodePortalReport = { node: peer.nodeId, at: Date.now(), portals: readPortalReport(body.portals) };
  if (!reports.set(peer.projectId, report))
    throw new InputError('BAD_REQUEST', 'this project has as many nodes reporting portals as it may have', {
      hint: 'the console shows the portals of the nodes that reported first',
    });
  connection.dropReport = () => reports.remove(peer.projectId, report);
  return {};
}

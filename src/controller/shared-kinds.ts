/**
 * The announcements controller replicas share (replica-live-state.ts), each read from and written back
 * to the registry that keeps it in memory: relay nodes (relay-directory.ts), inlets' direct paths
 * (inlet-adverts.ts) and what nodes report of their portals (portal-reports.ts). A direct path's
 * secret is sealed under the sealing key every replica holds, so the database never holds it in the clear.
 */
import { seal, unseal } from '../pki/seal.ts';
import { requirePolicy } from '../shared/policy.ts';
import type { InletAdvert, RelayEntry } from '../wire/protocol.ts';
import { hearsOf, type AdvertEntry, type InletAdverts } from './inlet-adverts.ts';
import type { AnnouncementContext } from './member-announcements.ts';
import { readPortalReport, type NodePortalReport, type PortalReports } from './portal-reports.ts';
import type { RelayDirectory } from './relay-directory.ts';
import type { SharedKind } from './replica-live-state.ts';

/** What replicas share of `context`: relay nodes, and direct paths, whose changes its members are told. */
export function sharedKinds(context: AnnouncementContext, sealingKey: Buffer): SharedKind[] {
  return [
    sharedRelays(context.relays),
    sharedPortals(context.portals),
    sharedAdverts(context.adverts, sealingKey, (projectId, entries) => {
      const { came, went } = context.adverts.setElsewhere(projectId, entries);
      for (const entry of went)
        context.subscribers.tell(projectId, { event: 'inlet-gone', inlet: entry.advert.inlet }, (member) =>
          hearsOf(member, entry),
        );
      for (const entry of came)
        context.subscribers.tell(projectId, { event: 'inlet', advert: entry.advert }, (member) =>
          hearsOf(member, entry),
        );
    }),
  ];
}

export function sharedRelays(directory: RelayDirectory): SharedKind {
  return {
    kind: 'relay',
    here: (projectId) =>
      directory.announcedHere(projectId).map((entry) => ({
        key: entry.id,
        body: JSON.stringify({ id: entry.id, address: entry.address, fingerprint: entry.fingerprint }),
      })),
    projectsHere: () => directory.projectsAnnouncedHere(),
    setElsewhere: (projectId, bodies) => directory.setElsewhere(projectId, bodies.flatMap(relayOf)),
    projectsElsewhere: () => directory.projectsElsewhere(),
    onChangedHere: (listener) => directory.onAnnouncedHere(listener),
  };
}

/** Nodes' portal reports: the console of any replica shows every node's portals. */
export function sharedPortals(reports: PortalReports): SharedKind {
  return {
    kind: 'portals',
    here: (projectId) =>
      reports.heldHere(projectId).map((report) => ({ key: report.node, body: JSON.stringify(report) })),
    projectsHere: () => reports.projectsHere(),
    setElsewhere: (projectId, bodies) => reports.setElsewhere(projectId, bodies.flatMap(portalReportOf)),
    projectsElsewhere: () => reports.projectsElsewhere(),
    onChangedHere: (listener) => reports.onChangedHere(listener),
  };
}

function portalReportOf(body: string): NodePortalReport[] {
  const read = parsed(body) as Partial<NodePortalReport> | undefined;
  if (typeof read?.node !== 'string' || typeof read.at !== 'number' || !Array.isArray(read.portals)) return [];
  try {
    return [{ node: read.node, at: read.at, portals: readPortalReport(read.portals) }];
  } catch {
    return [];
  }
}

function relayOf(body: string): RelayEntry[] {
  const entry = parsed(body) as Partial<RelayEntry> | undefined;
  const valid = [entry?.id, entry?.address, entry?.fingerprint].every((text) => typeof text === 'string');
  return valid ? [entry as RelayEntry] : [];
}

/**
 * Direct paths; `elsewhere` takes the entries other replicas hold in a project (it tells the members
 * what changed).
 */
export function sharedAdverts(
  adverts: InletAdverts,
  sealingKey: Buffer,
  elsewhere: (projectId: string, entries: AdvertEntry[]) => void,
): SharedKind {
  return {
    kind: 'advert',
    here: (projectId) =>
      adverts.heldHere(projectId).map(({ advert, allow }) => ({
        key: `${advert.inlet} ${advert.via}`,
        body: JSON.stringify({
          advert: { ...advert, secret: seal(sealingKey, Buffer.from(advert.secret)).toString('base64') },
          allow,
        }),
      })),
    projectsHere: () => adverts.projectsHeldHere(),
    setElsewhere: (projectId, bodies) =>
      elsewhere(
        projectId,
        bodies.flatMap((body) => advertOf(body, sealingKey)),
      ),
    projectsElsewhere: () => adverts.projectsElsewhere(),
    onChangedHere: (listener) => adverts.onChangedHere(listener),
  };
}

function advertOf(body: string, sealingKey: Buffer): AdvertEntry[] {
  const read = parsed(body) as { advert?: Partial<InletAdvert>; allow?: unknown } | undefined;
  const advert = read?.advert;
  if (!advert || typeof read.allow !== 'string' || typeof advert.secret !== 'string') return [];
  if (typeof advert.inlet !== 'string' || typeof advert.via !== 'string' || !Array.isArray(advert.addresses)) return [];
  try {
    const secret = unseal(sealingKey, Buffer.from(advert.secret, 'base64')).toString('utf8');
    return [
      { advert: { ...(advert as InletAdvert), secret }, allow: read.allow, policy: requirePolicy(read.allow, 'allow') },
    ];
  } catch {
    return [];
  }
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/**
 * The portals of a manifest, in either of its two forms, and the names that follow from the use case
 * when the manifest does not give them. Each derivation names the JSON pointers it reads, so that the
 * cross-field rules run it only when those parts of the manifest are well-formed. Pure.
 */
import type { EndpointManifest, UseCaseManifest, VerificationManifest } from '../shared/types/manifest.ts';

export type NodeRole = 'outlet' | 'inlet';

/** One portal as the manifest writes it, with where its parts are. */
export interface PortalSource {
  /** Position in portals (0 for the single portal). */
  readonly index: number;
  /** Whether the manifest uses portals (several portals on one pair of nodes). */
  readonly listed: boolean;
  /** JSON pointer of the portal's name: /usecase for the single portal. */
  readonly namePointer: string;
  readonly pointers: { readonly outlet: string; readonly inlet: string; readonly verification: string };
  readonly name: string | undefined;
  readonly outlet: Partial<OutletFields>;
  readonly inlet: Partial<InletFields>;
  readonly verification: VerificationManifest | undefined;
}

interface OutletFields {
  relay: string;
  to: string;
  allow: string;
  tls: boolean;
  endpoint: EndpointManifest;
}

interface InletFields {
  port: number;
  via: string;
  allow: string;
  tls: boolean;
}

/** Whether the manifest lists its portals under portals. */
export const isListed = (manifest: UseCaseManifest): boolean => manifest.portals !== undefined;

/** The manifest's portals, in order: the one of outlet, inlet and verification, or those of portals. */
export function portalSources(manifest: UseCaseManifest): PortalSource[] {
  if (!Array.isArray(manifest.portals)) {
    return [
      {
        index: 0,
        listed: false,
        namePointer: '/usecase',
        pointers: { outlet: '/outlet', inlet: '/inlet', verification: '/verification' },
        name: manifest.usecase,
        outlet: manifest.outlet ?? {},
        inlet: manifest.inlet ?? {},
        verification: manifest.verification,
      },
    ];
  }
  return manifest.portals.map((portal, index) => {
    const base = `/portals/${index}`;
    const entry = isObject(portal) ? portal : undefined;
    return {
      index,
      listed: true,
      namePointer: `${base}/name`,
      pointers: { outlet: `${base}/outlet`, inlet: `${base}/inlet`, verification: `${base}/verification` },
      name: entry?.name,
      outlet: isObject(entry?.outlet) ? entry.outlet : {},
      inlet: isObject(entry?.inlet) ? entry.inlet : {},
      verification: entry?.verification,
    };
  });
}

function isObject<T>(value: T | undefined): value is T {
  return isMapping(value);
}

/** Whether a value is a mapping: rules read parts of manifests that may be malformed. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The attribute a node's ticket gives it: as written, or <usecase>-outlet / <usecase>-inlet. */
export function attributeOf(manifest: UseCaseManifest, role: NodeRole): string {
  return manifest.tickets?.[role]?.attribute ?? `${manifest.usecase}-${role}`;
}
export const attributeReads = (role: NodeRole): string[] => [
  `/tickets/${role}/attribute`,
  `/tickets/${role}/attributes`,
  '/usecase',
];

/** Every attribute a ticket grants: its attribute, then the further ones it lists. */
export function ticketAttributesOf(manifest: UseCaseManifest, role: NodeRole): string[] {
  return [attributeOf(manifest, role), ...(manifest.tickets?.[role]?.attributes ?? [])];
}

/** The relay an outlet registers: as written, else the ticket's (single portal), else the portal's name. */
export function relayOf(manifest: UseCaseManifest, portal: PortalSource): string {
  return (
    portal.outlet.relay ?? (portal.listed ? undefined : manifest.tickets?.outlet?.relay) ?? (portal.name as string)
  );
}
export const relayReads = (portal: PortalSource): string[] => [
  `${portal.pointers.outlet}/relay`,
  ...(portal.listed ? [] : ['/tickets/outlet/relay']),
  portal.namePointer,
];

/** The relay an inlet goes through: as written, else its outlet's relay. */
export function viaOf(manifest: UseCaseManifest, portal: PortalSource): string {
  return portal.inlet.via ?? relayOf(manifest, portal);
}
export const viaReads = (portal: PortalSource): string[] => [`${portal.pointers.inlet}/via`, ...relayReads(portal)];

/** What the outlet allows: as written, else the inlet ticket's attribute. */
export function outletAllowOf(manifest: UseCaseManifest, portal: PortalSource): string {
  return portal.outlet.allow ?? attributeOf(manifest, 'inlet');
}

/** What the inlet allows: as written, else the outlet ticket's attribute. */
export function inletAllowOf(manifest: UseCaseManifest, portal: PortalSource): string {
  return portal.inlet.allow ?? attributeOf(manifest, 'outlet');
}

/** Whether the inlet ticket carries --tls: as written, else whether any inlet serves TLS. */
export function inletTicketTls(manifest: UseCaseManifest): boolean {
  return manifest.tickets?.inlet?.tls ?? portalSources(manifest).some((portal) => portal.inlet.tls === true);
}

/** The verification: as written, else a TCP connection through the inlet. */
export function verificationOf(portal: PortalSource): VerificationManifest {
  return portal.verification ?? { kind: 'tcp' };
}

/** The first label of a TLS inlet's name: the verification's, else the portal's name. */
export function labelOf(portal: PortalSource): string {
  const verification = portal.verification;
  const given = verification && 'label' in verification ? verification.label : undefined;
  return given ?? (portal.name as string);
}

/** The placeholder a target uses ($NAME or $NAME:port), and the port after it, if any. */
export function targetPlaceholder(to: string): { name: string; portText: string | undefined } | undefined {
  const match = /^\$([A-Za-z0-9_]+)(?::(.*))?$/.exec(to);
  return match ? { name: match[1] as string, portText: match[2] } : undefined;
}

/** A stack parameter name from a placeholder: REDIS_ENDPOINT gives RedisEndpoint. */
export function parameterName(placeholder: string): string {
  return placeholder
    .split('_')
    .filter(Boolean)
    .map((word) => word.charAt(0) + word.slice(1).toLowerCase())
    .join('');
}

/** A CloudFormation logical id part from a portal name: orders-db gives OrdersDb. */
export function pascalName(name: string): string {
  return name
    .split('-')
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

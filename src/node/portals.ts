/**
 * The portals a node configuration describes, as one list of outlets and one of inlets, whichever form
 * it was given in: the single forms (`relay` with `tcp-outlet`, `tcp-inlet`), whose portal is named
 * after its relay or via, or the plural ones (`tcp-outlets`, `tcp-inlets`), by portal name, whose relay
 * and via default to that name. Pure: the node, its reload and the configuration rules read these.
 */
import type { NodeConfig } from '../shared/types/node-config.ts';

/**
 * Where a direct path listens when the configuration does not say: loopback, on a port the system picks.
 * An outlet on this machine dials it; one elsewhere needs `direct: HOST:PORT`, an address its network
 * reaches, which the configuration names on purpose (docs/ports.md). A node opens no port to other
 * machines unasked.
 */
export const defaultDirectAddress = '127.0.0.1:0';

export interface OutletPortal {
  readonly name: string;
  /** The JSON pointer of its definition: /tcp-outlet (the single form) or /tcp-outlets/<name>. */
  readonly pointer: string;
  /** The relay name it registers. */
  readonly relay: string;
  readonly to: string;
  readonly allow: string;
  readonly tls: boolean;
}

export interface InletPortal {
  readonly name: string;
  /** The JSON pointer of its definition: /tcp-inlet (the single form) or /tcp-inlets/<name>. */
  readonly pointer: string;
  readonly from: string;
  /** The relay name its outlet registers. */
  readonly via: string;
  readonly allow: string;
  readonly tls: boolean;
  /** Where its direct path listens; false: relays only. */
  readonly direct: string | false;
}

export interface NodePortals {
  readonly outlets: readonly OutletPortal[];
  readonly inlets: readonly InletPortal[];
}

/**
 * The portals of a configuration that passed the schema. A single-form outlet without `relay` (which the
 * rules refuse) is left out.
 */
export function portalsOf(config: NodeConfig): NodePortals {
  const outlets: OutletPortal[] = [];
  const single = config['tcp-outlet'];
  if (single && config.relay)
    outlets.push({
      name: config.relay,
      pointer: '/tcp-outlet',
      relay: config.relay,
      to: single.to,
      allow: single.allow,
      tls: single.tls === true,
    });
  for (const [name, outlet] of Object.entries(config['tcp-outlets'] ?? {}))
    outlets.push({
      name,
      pointer: `/tcp-outlets/${name}`,
      relay: outlet.relay ?? name,
      to: outlet.to,
      allow: outlet.allow,
      tls: outlet.tls === true,
    });
  const inlets: InletPortal[] = [];
  const inlet = config['tcp-inlet'];
  if (inlet) inlets.push(inletPortal(inlet.via, '/tcp-inlet', { ...inlet }));
  for (const [name, named] of Object.entries(config['tcp-inlets'] ?? {}))
    inlets.push(inletPortal(name, `/tcp-inlets/${name}`, { ...named, via: named.via ?? name }));
  return { outlets, inlets };
}

function inletPortal(
  name: string,
  pointer: string,
  inlet: { from: string; via: string; allow: string; tls?: boolean; direct?: boolean | string },
): InletPortal {
  const direct =
    inlet.direct === false ? false : typeof inlet.direct === 'string' ? inlet.direct : defaultDirectAddress;
  return { name, pointer, from: inlet.from, via: inlet.via, allow: inlet.allow, tls: inlet.tls === true, direct };
}

/** Whether a portal was given by name (tcp-outlets, tcp-inlets): its lines, series and status then name it. */
export const isNamed = (portal: { readonly pointer: string }): boolean =>
  /^\/tcp-(outlets|inlets)\//.test(portal.pointer);

/** How a node's log, status and `node show` call a portal: "outlet" for the single form, else "outlet <name>". */
export function portalLabel(
  kind: 'outlet' | 'inlet',
  portal: { readonly name: string; readonly pointer: string },
): string {
  return isNamed(portal) ? `${kind} ${portal.name}` : kind;
}

/** What a reload changes: by portal name, within each kind. */
export interface PortalChanges<T> {
  readonly added: readonly T[];
  readonly removed: readonly T[];
  /** The running portal and the one that replaces it. */
  readonly changed: readonly { readonly before: T; readonly after: T }[];
  readonly unchanged: readonly T[];
}

/** The changes from `before` to `after`, matched by name; a portal whose every field is the same is unchanged. */
export function changesOf<T extends { readonly name: string }>(
  before: readonly T[],
  after: readonly T[],
): PortalChanges<T> {
  const old = new Map(before.map((portal) => [portal.name, portal]));
  const added: T[] = [];
  const changed: { before: T; after: T }[] = [];
  const unchanged: T[] = [];
  for (const portal of after) {
    const running = old.get(portal.name);
    if (!running) added.push(portal);
    else if (samePortal(running, portal)) unchanged.push(running);
    else changed.push({ before: running, after: portal });
  }
  const kept = new Set(after.map((portal) => portal.name));
  return { added, removed: before.filter((portal) => !kept.has(portal.name)), changed, unchanged };
}

/** Field by field: portals are flat records of texts and flags. */
function samePortal<T extends object>(a: T, b: T): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => a[key as keyof T] === b[key as keyof T]);
}

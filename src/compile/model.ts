/**
 * A manifest that passed every check, with every default filled in: what the generators work from.
 * Pure: a valid manifest in, the use case out.
 */
import { product } from '../shared/product.ts';
import type {
  ContainerManifest,
  InstanceTypeManifest,
  UseCaseManifest,
  VerificationManifest,
} from '../shared/types/manifest.ts';
import { resolveControlPlane, type ControlPlane } from './control-plane/model.ts';
import {
  attributeOf,
  ticketAttributesOf,
  inletAllowOf,
  inletTicketTls,
  isListed,
  labelOf,
  outletAllowOf,
  parameterName,
  pascalName,
  portalSources,
  relayOf,
  targetPlaceholder,
  verificationOf,
  viaOf,
  type NodeRole,
  type PortalSource,
} from './portals.ts';

export type { NodeRole } from './portals.ts';

/** Where the deployment's pieces come from; none is in a manifest, all are the administrator's. */
export interface CompileSettings {
  /** Address of install.sh; none: the guide says how to install from a release. */
  readonly installUrl?: string;
  /** host:port of the controller the nodes enroll with; none: tickets.sh asks for it. */
  readonly controller?: string;
}

/** General default instance type; see the schema's instanceType description for why. */
export const defaultInstanceType: InstanceTypeManifest = { default: 'm6a.large' };

export interface Ticket {
  readonly expiresIn: string;
  readonly usageCount: number;
  readonly attribute: string;
  /** Every attribute the ticket grants, `attribute` first: one --attribute each. */
  readonly attributes: readonly string[];
  /** Relays the node may register (outlet tickets). */
  readonly relays: readonly string[];
  readonly tls: boolean;
}

export interface Endpoint {
  readonly placeholder: string;
  readonly source: 'parameter' | 'vpc-endpoint';
  /** Stack parameter (source parameter). */
  readonly parameter?: string;
  /** PrivateLink service as written (source vpc-endpoint). */
  readonly service?: string;
  readonly port?: number;
  readonly label: string;
  readonly example?: string;
  /** JSON pointer of the endpoint in the manifest (for messages). */
  readonly pointer: string;
  /** The part of the private endpoint's logical id: its first portal's (see Portal.idPart). */
  readonly idPart: string;
}

export interface Portal {
  readonly name: string;
  /** The part of stack logical ids that names this portal ('' for a single portal). */
  readonly idPart: string;
  readonly pointers: PortalSource['pointers'];
  readonly outlet: {
    readonly to: string;
    readonly tls: boolean;
    readonly relay: string;
    readonly allow: string;
    readonly endpoint?: Endpoint;
  };
  readonly inlet: { readonly port: number; readonly tls: boolean; readonly via: string; readonly allow: string };
  readonly verification: VerificationManifest;
  /** First label of the TLS inlet's name <label>.<project_id>.<network_domain>. */
  readonly label: string;
}

export interface UseCase {
  readonly usecase: string;
  readonly title: string;
  readonly statusPort: number;
  /** Several portals listed under portals: the node configurations take their plural forms. */
  readonly listed: boolean;
  readonly tickets: Readonly<Record<NodeRole, Ticket>>;
  readonly instanceTypes: Readonly<Record<NodeRole, InstanceTypeManifest>>;
  readonly portals: readonly Portal[];
  /** Outlet nodes serving as one pool (outlet.replicas): each its own node, enrolled with the outlet ticket. */
  readonly outletReplicas: number;
  readonly container?: ContainerManifest;
  /** The self-hosted control plane to compile under control-plane/, if the manifest asks for one. */
  readonly controlPlane?: ControlPlane;
  readonly settings: CompileSettings;
}

export function resolveUseCase(manifest: UseCaseManifest, settings: CompileSettings = {}): UseCase {
  const sources = portalSources(manifest);
  const portals = sources.map((source) => resolvePortal(manifest, source));
  const outletReplicas = manifest.outlet?.replicas ?? 1;
  const ticket = (role: NodeRole): Ticket => {
    const given = manifest.tickets?.[role] ?? {};
    return {
      expiresIn: given['expires-in'] ?? '10h',
      // One enrollment per outlet replica: the same ticket enrolls each.
      usageCount: given['usage-count'] ?? (role === 'outlet' ? outletReplicas : 1),
      attribute: attributeOf(manifest, role),
      attributes: ticketAttributesOf(manifest, role),
      relays: role === 'outlet' ? [...new Set(portals.map((portal) => portal.outlet.relay))] : [],
      tls: role === 'inlet' && inletTicketTls(manifest),
    };
  };
  return {
    usecase: manifest.usecase,
    title: manifest.title,
    statusPort: manifest['status-port'] ?? product.statusPort,
    listed: isListed(manifest),
    tickets: { outlet: ticket('outlet'), inlet: ticket('inlet') },
    instanceTypes: {
      outlet: manifest.outlet?.['instance-type'] ?? defaultInstanceType,
      inlet: manifest.inlet?.['instance-type'] ?? defaultInstanceType,
    },
    portals,
    outletReplicas,
    ...(manifest.container ? { container: manifest.container } : {}),
    ...(manifest['control-plane'] ? { controlPlane: resolveControlPlane(manifest['control-plane']) } : {}),
    settings,
  };
}

function resolvePortal(manifest: UseCaseManifest, source: PortalSource): Portal {
  const name = source.name as string;
  const to = source.outlet.to as string;
  const placeholder = targetPlaceholder(to);
  const given = source.outlet.endpoint;
  const endpoint: Endpoint | undefined =
    placeholder || given
      ? {
          placeholder: given?.placeholder ?? (placeholder?.name as string),
          source: given?.source ?? 'parameter',
          ...((given?.source ?? 'parameter') === 'parameter'
            ? { parameter: given?.parameter ?? parameterName(given?.placeholder ?? (placeholder?.name as string)) }
            : {}),
          ...(given?.service !== undefined ? { service: given.service } : {}),
          ...(given?.port !== undefined ? { port: given.port } : {}),
          label: given?.label ?? `${source.listed ? name : manifest.title} endpoint`,
          ...(given?.example !== undefined ? { example: given.example } : {}),
          pointer: `${source.pointers.outlet}/endpoint`,
          idPart: source.listed ? pascalName(name) : '',
        }
      : undefined;
  return {
    name,
    idPart: source.listed ? pascalName(name) : '',
    pointers: source.pointers,
    outlet: {
      to,
      tls: source.outlet.tls === true,
      relay: relayOf(manifest, source),
      allow: outletAllowOf(manifest, source),
      ...(endpoint ? { endpoint } : {}),
    },
    inlet: {
      port: source.inlet.port as number,
      tls: source.inlet.tls === true,
      via: viaOf(manifest, source),
      allow: inletAllowOf(manifest, source),
    },
    verification: verificationOf(source),
    label: labelOf(source),
  };
}

/** Every endpoint of the use case, once per placeholder (portals may share one). */
export function endpointsOf(useCase: UseCase): Endpoint[] {
  const seen = new Map<string, Endpoint>();
  for (const portal of useCase.portals) {
    const endpoint = portal.outlet.endpoint;
    if (endpoint && !seen.has(endpoint.placeholder)) seen.set(endpoint.placeholder, endpoint);
  }
  return [...seen.values()];
}

/** Whether any inlet of the use case serves TLS. */
export const anyTlsInlet = (useCase: UseCase): boolean => useCase.portals.some((portal) => portal.inlet.tls);

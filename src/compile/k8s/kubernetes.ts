/**
 * The Kubernetes target: for each node of a use case, one multi-document file of typed objects, checked
 * against the Kubernetes API's declarations when it compiles. `k8s/outlet.yaml`: the outlet's
 * configuration, its endpoints, its state claim and its Deployment; `k8s/inlet.yaml`: the same without
 * endpoints, plus the Service clients reach the portals through. Each file's header names the two
 * Secrets to create first. Pure: data in, `{ path, content }` out.
 */
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { oneLine } from '../quote.ts';
import { secretCommands, ticketFile } from './admin-commands.ts';
import { configurationMap, endpointsMap, type Endpoint } from './config-maps.ts';
import { nodeDeployment } from './deployment.ts';
import { outletPoolDocuments } from './outlet-pool.ts';
import type { KubernetesDocument } from './document.ts';
import { podPorts, type NamedPort } from './inlet-ports.ts';
import { objectNames, type NodeRole } from './names.ts';
import { renderDocuments } from './render.ts';
import { inletService } from './service.ts';
import { stateClaim } from './storage.ts';

export interface KubernetesInput {
  /** Objects are named <usecase>-outlet and <usecase>-inlet, and after them. */
  readonly usecase: string;
  readonly title: string;
  /** The node image (the manifest's, or portal-node). */
  readonly image: string;
  /** NODE_LOG_LEVEL. */
  readonly logLevel: string;
  /** `replicas`: outlets in the pool (a StatefulSet when more than one); 1 when not given. */
  readonly outlet: { readonly config: NodeConfig; readonly endpoints: readonly Endpoint[]; readonly replicas?: number };
  /** `ports`: where the inlet listens, by portal; the Service opens each, under that name where it can. */
  readonly inlet: { readonly config: NodeConfig; readonly ports: readonly NamedPort[] };
}

export interface KubernetesArtifact {
  readonly path: string;
  readonly content: string;
}

export function kubernetesArtifacts(input: KubernetesInput): KubernetesArtifact[] {
  const { usecase, outlet, inlet } = input;
  const workload = { usecase, image: input.image, logLevel: input.logLevel };
  const ports = podPorts(inlet.config, inlet.ports);
  const outletWorkload = {
    ...workload,
    role: 'outlet',
    config: outlet.config,
    endpoints: outlet.endpoints,
    ports: [],
  } as const;
  const replicas = outlet.replicas ?? 1;
  const outletDocuments: KubernetesDocument[] = [
    configurationMap(usecase, 'outlet', outlet.config),
    ...(outlet.endpoints.length > 0 ? [endpointsMap(usecase, outlet.endpoints)] : []),
    ...(replicas > 1
      ? outletPoolDocuments(outletWorkload, replicas)
      : [stateClaim(usecase, 'outlet'), nodeDeployment(outletWorkload)]),
  ];
  const inletDocuments: KubernetesDocument[] = [
    configurationMap(usecase, 'inlet', inlet.config),
    stateClaim(usecase, 'inlet'),
    nodeDeployment({ ...workload, role: 'inlet', config: inlet.config, endpoints: [], ports }),
    inletService(usecase, ports),
  ];
  return [
    { path: 'k8s/outlet.yaml', content: renderDocuments(header(input, 'outlet', replicas), outletDocuments) },
    { path: 'k8s/inlet.yaml', content: renderDocuments(header(input, 'inlet', 1), inletDocuments) },
  ];
}

function header(input: KubernetesInput, role: NodeRole, replicas: number): string[] {
  const commands = secretCommands(input.usecase, role);
  const names = objectNames(input.usecase, role);
  const pool = replicas > 1;
  const useCase = `${oneLine(input.title)} (${input.usecase})`;
  const enrolled = pool ? 'nodes have' : 'node has';
  return [
    pool
      ? `The pool of ${replicas} Portal outlet nodes of ${useCase}, for kubectl apply -f.`
      : `The Portal ${role} node of ${useCase}, for kubectl apply -f.`,
    'First create its two Secrets, in the namespace you apply this file to:',
    `  ${commands.ticket}`,
    `  ${commands.sealingKey}`,
    `The ticket (${ticketFile(role)}, from tickets.sh) is needed until the ${enrolled} enrolled; then you may`,
    `delete ${names.ticketSecret}. Keep ${names.sealingKeySecret}: without it the identity on the`,
    pool
      ? `state claims (state-${names.node}-0 and on) cannot be opened, and the nodes need a new ticket.`
      : `${names.state} claim cannot be opened, and the node needs a new ticket.`,
    pool
      ? `Check a node: kubectl exec ${names.node}-0 -- portal node show (and -1 and on)`
      : `Check the node: kubectl exec deployment/${names.node} -- portal node show`,
  ];
}

/**
 * A node's Deployment: one replica of the node image, replaced with the Recreate strategy (a node's
 * state is one identity, and its volume is ReadWriteOnce), running the command the compose file runs:
 * `node create --foreground --configuration <file>`. The ticket reaches the node as ENROLLMENT_TICKET
 * from its Secret, never on the command line; it is optional, since an enrolled node needs it no more
 * and the administrator may delete it. Pure.
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import { createHash } from 'node:crypto';
import { defaultDrainMs } from '../../shared/limits.ts';
import { product } from '../../shared/product.ts';
import { sealingKeyVariables } from '../../shared/sealing-key.ts';
import { toStableJson } from '../../shared/serialize.ts';
import { stopWaitMs } from '../../shared/stop-wait.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { configurationFile, type Endpoint } from './config-maps.ts';
import type { KubernetesDocument } from './document.ts';
import type { NamedPort } from './inlet-ports.ts';
import { nodeLabels, objectNames, podPaths, secretKeys, selectorLabels, type NodeRole } from './names.ts';
import { livenessProbe, readinessProbe, startupProbe } from './probes.ts';
import { sealingKeyCopier, sealingKeyMount, sealingKeyVolumes } from './sealing-key.ts';
import { containerSecurityContext, podSecurityContext } from './security.ts';

export interface NodeWorkload {
  readonly usecase: string;
  readonly role: NodeRole;
  readonly image: string;
  readonly logLevel: string;
  readonly config: NodeConfig;
  /** The outlet's placeholders, each an environment variable from the endpoints ConfigMap. */
  readonly endpoints: readonly Endpoint[];
  /** The inlet's ports, named as the Service names them. */
  readonly ports: readonly NamedPort[];
}

/** The pod template changes with the configuration, so applying a new one restarts the node with it. */
export const configurationHashAnnotation = 'portal/configuration-sha256';

/** The pod's volumes; `state` is also the name of a StatefulSet's claim template. */
export const volumeNames = { state: 'state', configuration: 'configuration' } as const;

export function nodeDeployment(workload: NodeWorkload): KubernetesDocument {
  const { usecase, role } = workload;
  const names = objectNames(usecase, role);
  const object: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: names.node, labels: nodeLabels(usecase, role) },
    spec: {
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selectorLabels(usecase, role) },
      template: podTemplate(workload, { name: volumeNames.state, persistentVolumeClaim: { claimName: names.state } }),
    },
  };
  return {
    object,
    comment: [`The ${role} node: one pod, stopped before its replacement starts, so that its identity runs once.`],
  };
}

/**
 * The node's pod. `stateVolume`: where its state comes from, the claim of a Deployment's single pod;
 * none for a StatefulSet's pods, which each get their own claim from its template (named `state`).
 */
export function podTemplate(workload: NodeWorkload, stateVolume?: IVolume): IPodTemplateSpec {
  const { usecase, role, config } = workload;
  const names = objectNames(usecase, role);
  return {
    metadata: {
      labels: nodeLabels(usecase, role),
      annotations: { [configurationHashAnnotation]: sha256(toStableJson(config)) },
    },
    spec: {
      // The node asks nothing of the Kubernetes API, and its environment is exactly the one below.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: podSecurityContext(workload.ports.map((entry) => entry.port)),
      // As the compose file's stop_grace_period: the node's drain after SIGTERM, and a margin to close.
      terminationGracePeriodSeconds: Math.ceil(stopWaitMs(defaultDrainMs) / 1000),
      initContainers: [sealingKeyCopier(workload.image)],
      containers: [nodeContainer(workload)],
      volumes: [
        { name: volumeNames.configuration, configMap: { name: names.configuration } },
        ...sealingKeyVolumes(names.sealingKeySecret),
        ...(stateVolume ? [stateVolume] : []),
      ],
    },
  };
}

function nodeContainer(workload: NodeWorkload): IContainer {
  const { role, config, ports } = workload;
  const statusPort = config['http-server-port'] ?? product.statusPort;
  return {
    name: 'node',
    image: workload.image,
    // The default image is built locally (docker build -t portal-node .) and loaded into the cluster:
    // with its implicit :latest tag the kubelet would otherwise try to pull it from a registry.
    imagePullPolicy: 'IfNotPresent',
    args: ['node', 'create', '--foreground', '--configuration', `${podPaths.configuration}/${configurationFile(role)}`],
    env: environment(workload),
    ...(ports.length > 0
      ? { ports: ports.map(({ name, port }) => ({ name, containerPort: port, protocol: 'TCP' as const })) }
      : {}),
    securityContext: containerSecurityContext,
    startupProbe: startupProbe(statusPort),
    livenessProbe: livenessProbe(statusPort),
    readinessProbe: readinessProbe(statusPort),
    volumeMounts: [
      { name: volumeNames.configuration, mountPath: podPaths.configuration, readOnly: true },
      sealingKeyMount,
      { name: volumeNames.state, mountPath: podPaths.state },
    ],
  };
}

function environment(workload: NodeWorkload): IEnvVar[] {
  const names = objectNames(workload.usecase, workload.role);
  const variables: IEnvVar[] = [
    {
      name: 'ENROLLMENT_TICKET',
      valueFrom: { secretKeyRef: { name: names.ticketSecret, key: secretKeys.ticket, optional: true } },
    },
    { name: 'NODE_LOGGING', value: 'true' },
    { name: 'NODE_LOG_LEVEL', value: workload.logLevel },
    { name: 'PORTAL_HOME', value: podPaths.state },
    { name: sealingKeyVariables.node, value: podPaths.keyFile },
    ...workload.endpoints.map(({ placeholder }) => ({
      name: placeholder,
      valueFrom: { configMapKeyRef: { name: names.endpoints, key: placeholder } },
    })),
  ];
  return variables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The controller replicas on Kubernetes: a Deployment of `replicas` pods, each running `portal controller
 * start` on the one external PostgreSQL database with the one sealing key and no relay of its own; a
 * LoadBalancer Service that nodes, relays and administrators dial as <address>:<port>; and a budget
 * that lets a voluntary disruption take one replica at a time. Every replica serves the project with no
 * leader, so any may answer. The database's URL reaches the arguments through $(PORTAL_STORE_URL) from
 * its Secret (it carries no password: the controller refuses one there); the password and the sealing
 * key are files, never arguments. With PostgreSQL the data directory holds nothing a replica needs to
 * keep: an emptyDir. Pure.
 */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { sealingKeyMount } from '../k8s/sealing-key.ts';
import type { KubernetesDocument } from '../k8s/document.ts';
import { healthzReadinessProbe, livenessProbe, processAnswers, startupProbe } from '../k8s/probes.ts';
import { containerSecurityContext } from '../k8s/security.ts';
import {
  planeLabels,
  planeObjects,
  planePaths,
  planeSecrets,
  planeSelector,
  planeVariables,
  portNames,
} from './k8s-names.ts';
import { loadBalancer, planePodSpec } from './k8s-pods.ts';
import { controlPlaneNames, type ControlPlane } from './model.ts';

const volumes = { data: 'data', database: 'database' } as const;

/** Read by the group (the pod's fsGroup, the controller's) and nobody else. */
const databaseFileMode = 0o440;

/** What nodes dial: the name the administrator points at the controllers' load balancer. */
export const controllerAddress = (plane: ControlPlane): string => `${plane.address}:${plane.port}`;

/** The controller's arguments, after the image's `portal`. */
export function controllerArgs(plane: ControlPlane): string[] {
  return [
    'controller',
    'start',
    '--listen',
    `0.0.0.0:${plane.port}`,
    '--public-address',
    controllerAddress(plane),
    '--store',
    `$(${planeVariables.storeUrl})`,
    '--store-password-file',
    `${planePaths.database}/${planeSecrets.database.password}`,
    '--sealing-key-file',
    `${planePaths.controllerKeys}/${planeSecrets.controllerSeal.key}`,
    '--no-relay',
    // On the pod's address, so that the kubelet's readiness probe reaches it; the Service opens it not.
    '--status-listen',
    `0.0.0.0:${controlPlaneNames.statusPort}`,
    '--data-dir',
    planePaths.dataDir,
  ];
}

export function controllerDocuments(plane: ControlPlane, image: string): KubernetesDocument[] {
  const labels = planeLabels('controller');
  const selector = planeSelector('controller');
  const name = planeObjects.controller;
  const deployment: IDeployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: plane.replicas,
      // One replica away at a time and never one more than `replicas`: the others serve meanwhile, and
      // the database sees no more connections than the replicas' own.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: planePodSpec({
          role: 'controller',
          image,
          listenPorts: [plane.port, controlPlaneNames.statusPort],
          sealingKey: planeSecrets.controllerSeal,
          containers: [controllerContainer(plane, image)],
          volumes: [
            { name: volumes.data, emptyDir: {} },
            {
              name: volumes.database,
              secret: { secretName: planeSecrets.database.name, defaultMode: databaseFileMode },
            },
          ],
        }),
      },
    },
  };
  const service = loadBalancer(name, 'controller', selector, {
    name: portNames.controller,
    port: plane.port,
    targetPort: portNames.controller,
    protocol: 'TCP',
  });
  const budget: IPodDisruptionBudget = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
  };
  return [
    {
      object: deployment,
      comment: [
        `The ${plane.replicas} controller replicas, on the database of the Secret ${planeSecrets.database.name}.`,
        'Each replica with no project yet prints a one-time admin code in its log.',
      ],
    },
    {
      object: service,
      comment: [`What nodes, relays and administrators dial: point ${plane.address} at its load balancer.`],
    },
    { object: budget, comment: ['A voluntary disruption takes one replica at a time.'] },
  ];
}

function controllerContainer(plane: ControlPlane, image: string): IContainer {
  return {
    name: 'controller',
    image,
    // The default image is built locally and loaded into the cluster (see the node files).
    imagePullPolicy: 'IfNotPresent',
    args: controllerArgs(plane),
    env: [
      { name: planeVariables.home, value: planePaths.home },
      {
        name: planeVariables.storeUrl,
        valueFrom: { secretKeyRef: { name: planeSecrets.database.name, key: planeSecrets.database.url } },
      },
    ],
    ports: [
      { name: portNames.controller, containerPort: plane.port, protocol: 'TCP' },
      { name: portNames.status, containerPort: controlPlaneNames.statusPort, protocol: 'TCP' },
    ],
    securityContext: containerSecurityContext,
    // Out of the load balancer while its database does not answer (/healthz asks it); restarted only
    // when the process itself stops answering, which a database away is not: a restart would not bring
    // it back, and would drop every member's connection.
    readinessProbe: healthzReadinessProbe(portNames.status),
    startupProbe: startupProbe(controlPlaneNames.statusPort, processAnswers),
    livenessProbe: livenessProbe(controlPlaneNames.statusPort, processAnswers),
    volumeMounts: [
      sealingKeyMount,
      { name: volumes.data, mountPath: planePaths.home },
      { name: volumes.database, mountPath: planePaths.database, readOnly: true },
    ],
  };
}

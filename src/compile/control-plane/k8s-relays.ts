/**
 * The relays on Kubernetes: a StatefulSet of `relays` pods numbered from 1, each a relay node with an
 * identity of its own on its own state claim, announcing relay-<n>.<address>:<relay port>, which a
 * LoadBalancer Service of its own (selecting that one pod) answers; the headless Service the set names
 * its pods under; and a budget that lets a voluntary disruption take one relay at a time.
 *
 * A StatefulSet rather than one Deployment per relay: a new image or setting rolls over the relays one
 * at a time, each drained and ready again before the next, so the others carry the portals meanwhile
 * (`kubectl apply` of N Deployments restarts every relay at once); it never runs two pods of one
 * ordinal, so one identity never runs twice; and each pod gets its claim from the set's template and
 * keeps it across reschedules. The price: Kubernetes 1.28 or later, for pods numbered from 1
 * (`ordinals.start`) that know their number (the pod-index label), so relay n is named as on the
 * other targets.
 *
 * Each relay enrolls once with the relays' ticket (ENROLLMENT_TICKET, optional: an enrolled relay needs
 * it no more), keeps its identity under PORTAL_HOME on the claim and reads its sealing key where
 * `portal relay start` looks for it, $PORTAL_HOME/keys/relay-seal.key: a memory volume mounted there,
 * which an init container fills from the relays' Secret, so a copy of a claim alone opens nothing.
 * It reaches the controllers through their Service in the cluster, not out to the load balancer and
 * back. Pure.
 */
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IService } from 'kubernetes-models/v1/Service';
import { keyVolumes } from '../k8s/sealing-key.ts';
import type { KubernetesDocument } from '../k8s/document.ts';
import { healthzReadinessProbe, livenessProbe, processAnswers, startupProbe } from '../k8s/probes.ts';
import { containerSecurityContext } from '../k8s/security.ts';
import { stateClaimSpec } from '../k8s/storage.ts';
import {
  planeLabels,
  planeObjects,
  planePaths,
  planeSecrets,
  planeSelector,
  planeVariables,
  podIndexLabel,
  podNameLabel,
  portNames,
} from './k8s-names.ts';
import { loadBalancer, planePodSpec } from './k8s-pods.ts';
import { controlPlaneNames, numbered, type ControlPlane } from './model.ts';

/** The name of each pod's claim in the set's template: its claims are state-portal-relay-<n>. */
const stateVolume = 'state';

/** Relay n's address, as it announces it and as nodes dial it; `n` is $(RELAY_NUMBER) in the pod. */
export const relayAddress = (plane: ControlPlane, n: number | string): string =>
  `relay-${n}.${plane.address}:${plane.relayPort}`;

/** The relay's arguments, after the image's `portal`; Kubernetes puts each pod's number in. */
export function relayArgs(plane: ControlPlane): string[] {
  return [
    'relay',
    'start',
    '--listen',
    `0.0.0.0:${plane.relayPort}`,
    '--public-address',
    relayAddress(plane, `$(${planeVariables.relayNumber})`),
    '--controller',
    `${planeObjects.controller}:${plane.port}`,
    '--status-listen',
    `0.0.0.0:${controlPlaneNames.relayStatusPort}`,
  ];
}

export function relayDocuments(plane: ControlPlane, image: string): KubernetesDocument[] {
  const labels = planeLabels('relay');
  const selector = planeSelector('relay');
  const name = planeObjects.relay;
  const headless: IService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels },
    spec: { clusterIP: 'None', selector },
  };
  const statefulSet: IStatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, labels },
    spec: {
      serviceName: name,
      replicas: plane.relays,
      ordinals: { start: 1 },
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate' },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: planePodSpec({
          role: 'relay',
          image,
          listenPorts: [plane.relayPort, controlPlaneNames.relayStatusPort],
          sealingKey: planeSecrets.relaySeal,
          containers: [relayContainer(plane, image)],
          volumes: [],
        }),
      },
      volumeClaimTemplates: [{ metadata: { name: stateVolume, labels }, spec: stateClaimSpec }],
    },
  };
  const budget: IPodDisruptionBudget = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: selector } },
  };
  const services = numbered(plane.relays).map((n): KubernetesDocument => ({
    object: loadBalancer(
      planeObjects.relayPod(n),
      'relay',
      { ...selector, [podNameLabel]: planeObjects.relayPod(n) },
      { name: portNames.relay, port: plane.relayPort, targetPort: portNames.relay, protocol: 'TCP' },
    ),
    comment: [`Relay ${n} alone: point relay-${n}.${plane.address} at its load balancer.`],
  }));
  return [
    { object: headless, comment: ["Names the relays' pods; it opens no port."] },
    {
      object: statefulSet,
      comment: [
        `The ${plane.relays} relays, portal-relay-1 and on: each its own node, enrolled once with the one ticket.`,
        "Deleting a claim (kubectl delete pvc) loses that relay's identity: it then needs a ticket use.",
      ],
    },
    ...services,
    { object: budget, comment: ['A voluntary disruption takes one relay at a time.'] },
  ];
}

function relayContainer(plane: ControlPlane, image: string): IContainer {
  return {
    name: 'relay',
    image,
    imagePullPolicy: 'IfNotPresent',
    args: relayArgs(plane),
    env: [
      {
        name: planeVariables.ticket,
        valueFrom: {
          secretKeyRef: { name: planeSecrets.relayTicket.name, key: planeSecrets.relayTicket.key, optional: true },
        },
      },
      { name: planeVariables.home, value: planePaths.home },
      {
        name: planeVariables.relayNumber,
        valueFrom: { fieldRef: { fieldPath: `metadata.labels['${podIndexLabel}']` } },
      },
    ],
    ports: [
      { name: portNames.relay, containerPort: plane.relayPort, protocol: 'TCP' },
      { name: portNames.status, containerPort: controlPlaneNames.relayStatusPort, protocol: 'TCP' },
    ],
    securityContext: containerSecurityContext,
    // Out of its load balancer until the controllers hold its announcement (nodes learn of it only
    // through them) and while its connection to them is down; restarted only when the process stops
    // answering, since it reconnects by itself.
    readinessProbe: healthzReadinessProbe(portNames.status),
    startupProbe: startupProbe(controlPlaneNames.relayStatusPort, processAnswers),
    livenessProbe: livenessProbe(controlPlaneNames.relayStatusPort, processAnswers),
    volumeMounts: [
      { name: stateVolume, mountPath: planePaths.home },
      // Inside the claim's mount, over its keys directory: the key never lands on the claim.
      { name: keyVolumes.copy, mountPath: planePaths.relayKeys, readOnly: true },
    ],
  };
}

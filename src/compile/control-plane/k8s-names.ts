/**
 * Names, labels, Secrets and paths the control plane's Kubernetes objects share. They are Portal's, not
 * the use case's (`portal-controller`, `portal-relay`): one control plane serves the project, whatever
 * use cases its nodes run, and its names cannot meet a node's (`<usecase>-outlet`, `<usecase>-inlet`).
 * The four Secrets are made by the administrator, never applied: applying a file again must never blank
 * them. Pure.
 */
import { keysDirectory, sealingKeyFileNames } from '../../shared/sealing-key.ts';
import { podPaths } from '../k8s/names.ts';

export type PlaneRole = 'controller' | 'relay';

/** The files, relative to control-plane/. */
export const planeFiles = { controllers: 'k8s/controllers.yaml', relays: 'k8s/relays.yaml' } as const;

/** The Deployment, StatefulSet, Services and budgets. */
export const planeObjects = {
  /** The controllers' Deployment, their load balancer and their budget. */
  controller: 'portal-controller',
  /** The relays' StatefulSet, the headless Service it names its pods under, and their budget. */
  relay: 'portal-relay',
  /** Relay n's pod (StatefulSet ordinals start at 1) and its own load balancer. */
  relayPod: (n: number | string): string => `portal-relay-${n}`,
} as const;

/**
 * The key a relay's sealing key has in its Secret, and its file under $PORTAL_HOME/keys, where
 * `portal relay start` looks for it (relaySealingKeyFile of src/relay/relay-node.ts).
 */
export const relaySealingKeyName = 'relay-seal.key';

/** Each Secret's name and keys, as the administrator's kubectl commands make them. */
export const planeSecrets = {
  /** The external PostgreSQL database: `url` (no password in it) and `password`. */
  database: { name: 'portal-database', url: 'url', password: 'password' },
  controllerSeal: { name: 'portal-controller-seal', key: sealingKeyFileNames.controller },
  /** The relays' enrollment ticket, needed until each relay is enrolled. */
  relayTicket: { name: 'portal-relay-ticket', key: 'ticket' },
  relaySeal: { name: 'portal-relay-seal', key: relaySealingKeyName },
} as const;

/** The recommended labels; the first two select a role's pods. */
export function planeSelector(role: PlaneRole): Record<string, string> {
  const name = planeObjects[role];
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/instance': name };
}

export function planeLabels(role: PlaneRole): Record<string, string> {
  return { ...planeSelector(role), 'app.kubernetes.io/component': role, 'app.kubernetes.io/part-of': 'portal' };
}

/** The label a StatefulSet sets on each of its pods, with the pod's name: what relay n's Service selects. */
export const podNameLabel = 'statefulset.kubernetes.io/pod-name';

/** The label a StatefulSet sets on each pod (Kubernetes 1.28 on), with its ordinal: relay n's number. */
export const podIndexLabel = 'apps.kubernetes.io/pod-index';

/** Named ports of the containers, which the Services and probes refer to. */
export const portNames = { controller: 'controller', relay: 'relay', status: 'status' } as const;

/** Where the pods mount what. */
export const planePaths = {
  /** PORTAL_HOME, the image's: an emptyDir for a controller, the state claim for a relay. */
  home: podPaths.state,
  /** The controller's --data-dir: with PostgreSQL it holds nothing a replica needs to keep. */
  dataDir: `${podPaths.state}/controller`,
  /** The controller's sealing key, copied from its Secret; a volume apart from everything else. */
  controllerKeys: podPaths.keys,
  /** The relay's sealing key, where `portal relay start` reads it: a memory volume, not the claim. */
  relayKeys: keysDirectory(podPaths.state),
  /** The database Secret's keys as files (url, password, and a CA certificate if the Secret has one). */
  database: '/etc/portal-database',
} as const;

/** The variables the pods' arguments name: Kubernetes replaces $(NAME) with each. */
export const planeVariables = {
  storeUrl: 'PORTAL_STORE_URL',
  relayNumber: 'RELAY_NUMBER',
  ticket: 'ENROLLMENT_TICKET',
  home: 'PORTAL_HOME',
} as const;

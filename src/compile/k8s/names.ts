/**
 * Names, labels and paths the Kubernetes objects of one node share. Every object of a node is named
 * after it (`<usecase>-outlet`, `<usecase>-inlet`, plus a suffix), so the objects of several use cases
 * and of both roles can live in one namespace. Pure.
 */
import { sealingKeyFileNames } from '../../shared/sealing-key.ts';
import { compileDefaults } from '../defaults.ts';

export type NodeRole = 'outlet' | 'inlet';

/** The node's own name: the Deployment's, the Service's, and the prefix of every other object's. */
export const nodeName = (usecase: string, role: NodeRole): string => `${usecase}-${role}`;

/** Names of the objects a node's pod refers to; the two Secrets are made by the administrator, not applied. */
export function objectNames(usecase: string, role: NodeRole) {
  const node = nodeName(usecase, role);
  return {
    node,
    configuration: `${node}-configuration`,
    endpoints: `${node}-endpoints`,
    state: `${node}-state`,
    ticketSecret: `${node}-ticket`,
    sealingKeySecret: `${node}-sealing-key`,
  } as const;
}

/** The recommended labels (app.kubernetes.io/…); the first two select the node's pod. */
export function selectorLabels(usecase: string, role: NodeRole): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'portal-node',
    'app.kubernetes.io/instance': nodeName(usecase, role),
  };
}

export function nodeLabels(usecase: string, role: NodeRole): Record<string, string> {
  return { ...selectorLabels(usecase, role), 'app.kubernetes.io/component': role };
}

/** Keys inside the Secrets, as the administrator's kubectl commands name them. */
export const secretKeys = { ticket: 'ticket', sealingKey: sealingKeyFileNames.node } as const;

/** Where the pod mounts what; the state and key directories are the image's (see the Dockerfile). */
export const podPaths = {
  /** PORTAL_HOME: the node's identity and state, on the PersistentVolumeClaim. */
  state: compileDefaults.stateDirectory,
  /** The sealing key's directory, a volume of its own apart from the state. */
  keys: compileDefaults.containerKeysDirectory,
  keyFile: compileDefaults.containerSealingKeyFile,
  /** The sealing-key Secret, read once by the init container that copies the key for the node. */
  keySecret: '/etc/portal-sealing-key',
  /** The node configuration, from its ConfigMap. */
  configuration: '/etc/portal',
} as const;

/** The image's numeric user and group (the Dockerfile's USER), which owns the state directory. */
export const nodeUser = 10001;

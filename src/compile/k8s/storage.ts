/**
 * The node's state (PORTAL_HOME: its identity, certificates and relay list) on a PersistentVolumeClaim,
 * so that a replaced pod reuses the identity and needs no new ticket. ReadWriteOnce and one replica
 * with the Recreate strategy: one identity is one running node. The claim takes the cluster's default
 * storage class. Pure.
 */
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IPersistentVolumeClaimSpec } from 'kubernetes-models/v1/PersistentVolumeClaimSpec';
import type { KubernetesDocument } from './document.ts';
import { nodeLabels, objectNames, type NodeRole } from './names.ts';

/** The state holds a few small files; this is the least many storage classes provision anyway. */
const stateSize = '1Gi';

/** What each claim asks for: the single node's, and each of a pool's from the StatefulSet's template. */
export const stateClaimSpec: IPersistentVolumeClaimSpec = {
  accessModes: ['ReadWriteOnce'],
  resources: { requests: { storage: stateSize } },
};

export function stateClaim(usecase: string, role: NodeRole): KubernetesDocument {
  const object: IPersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: objectNames(usecase, role).state, labels: nodeLabels(usecase, role) },
    spec: stateClaimSpec,
  };
  return {
    object,
    comment: [
      "The node's identity. Deleting this claim (kubectl delete -f deletes it too) loses the identity:",
      'the node then needs a new ticket.',
    ],
  };
}

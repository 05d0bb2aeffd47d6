/**
 * A pool of outlet replicas (outlet.replicas above 1) as Kubernetes runs it: a StatefulSet, because
 * each replica is a node with an identity of its own that must survive its pod, so each pod gets its
 * own state claim from the set's template (`state-<usecase>-outlet-<n>`) and keeps it across
 * restarts and reschedules; a PodDisruptionBudget that lets a voluntary disruption (a node drain, an
 * upgrade of the cluster) take one replica at a time, since the inlets carry new connections to the
 * others meanwhile; and the headless Service the StatefulSet names for its pods. The pods start
 * together (Parallel: replicas do not depend on each other) and a new configuration rolls over them
 * one at a time, each drained by SIGTERM before its successor starts. Pure.
 */
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IService } from 'kubernetes-models/v1/Service';
import { podTemplate, volumeNames, type NodeWorkload } from './deployment.ts';
import type { KubernetesDocument } from './document.ts';
import { nodeLabels, objectNames, selectorLabels } from './names.ts';
import { stateClaimSpec } from './storage.ts';

export function outletPoolDocuments(workload: NodeWorkload, replicas: number): KubernetesDocument[] {
  const { usecase, role } = workload;
  const names = objectNames(usecase, role);
  const labels = nodeLabels(usecase, role);
  const service: IService = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: names.node, labels },
    // Headless and without ports: an outlet accepts nothing; the set's pods are named under it.
    spec: { clusterIP: 'None', selector: selectorLabels(usecase, role) },
  };
  const statefulSet: IStatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: names.node, labels },
    spec: {
      serviceName: names.node,
      replicas,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate' },
      selector: { matchLabels: selectorLabels(usecase, role) },
      template: podTemplate(workload),
      volumeClaimTemplates: [{ metadata: { name: volumeNames.state, labels }, spec: stateClaimSpec }],
    },
  };
  const budget: IPodDisruptionBudget = {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: names.node, labels },
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(usecase, role) } },
  };
  return [
    { object: service, comment: ["Names the pool's pods; it opens no port, as an outlet accepts no connection."] },
    {
      object: statefulSet,
      comment: [
        `The pool of ${replicas} outlets: each pod its own node, with its own state claim, enrolled with the`,
        'one ticket; inlets spread new connections over those that are up.',
        "Deleting a claim (kubectl delete pvc) loses that replica's identity: it then needs a ticket use.",
      ],
    },
    { object: budget, comment: ['A voluntary disruption takes one outlet of the pool at a time.'] },
  ];
}

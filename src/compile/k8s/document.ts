/** One object of a multi-document Kubernetes file, with the comments printed beside it. */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';

export type KubernetesObject =
  IDeployment | IStatefulSet | IPodDisruptionBudget | IService | IConfigMap | IPersistentVolumeClaim;

export interface KubernetesDocument {
  readonly object: KubernetesObject;
  /** Lines above the document: what it is for and what the administrator does with it. */
  readonly comment?: readonly string[];
  /** Lines above keys of the object's `data` (a ConfigMap's), by key. */
  readonly dataComments?: Readonly<Record<string, readonly string[]>>;
}

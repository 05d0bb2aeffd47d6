/** One object of a multi-document Kubernetes file, with the comments printed beside it. */
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';

export type KubernetesObject = IDeployment | IService | IConfigMap | IPersistentVolumeClaim;

export interface KubernetesDocument {
  readonly object: KubernetesObject;
  /** Lines above the document: what it is for and what the administrator does with it. */
  readonly comment?: readonly string[];
  /** Lines above keys of the object's `data` (a ConfigMap's), by key. */
  readonly dataComments?: Readonly<Record<string, readonly string[]>>;
}

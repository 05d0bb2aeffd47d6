/**
 * The self-hosted control plane's artifacts, under control-plane/ of the use case's folder: a compose
 * file for one machine, Kubernetes manifests, a CloudFormation stack and the guide that deploys each.
 * Pure: the resolved use case in, `{ path, content }` out.
 */
import { toStableYaml } from '../../shared/serialize.ts';
import type { UseCase } from '../model.ts';
import { printCfnYaml } from '../stack/cfn-yaml.ts';
import { controlPlaneCompose } from './compose.ts';
import { controlPlaneGuide } from './guide.ts';
import { controlPlaneKubernetes } from './kubernetes.ts';
import { controlPlaneNames } from './model.ts';
import { controlPlaneStack } from './stack.ts';

export interface ControlPlaneArtifact {
  /** Relative to the use case's folder. */
  readonly path: string;
  readonly content: string;
}

export function controlPlaneArtifacts(useCase: UseCase): ControlPlaneArtifact[] {
  const plane = useCase.controlPlane;
  if (!plane) return [];
  const under = (path: string) => `${controlPlaneNames.folder}/${path}`;
  const stack = controlPlaneStack(plane, useCase);
  return [
    { path: under('compose.yaml'), content: toStableYaml(controlPlaneCompose(plane, useCase)) },
    ...controlPlaneKubernetes(plane, useCase).map(({ path, content }) => ({ path: under(path), content })),
    ...(stack ? [{ path: under('stack.yaml'), content: printCfnYaml(stack) }] : []),
    { path: under('README.md'), content: controlPlaneGuide(plane, useCase) },
  ];
}

/**
 * control-plane/README.md: what the control plane is, then how to deploy it on each target. Each
 * target's section is a template of its own (templates/control-plane-*.md.hbs) given the facts its
 * generator names, so that the guide and the artifact cannot disagree.
 */
import type { UseCase } from '../model.ts';
import { renderTemplate } from '../templates.ts';
import { composeGuideFacts } from './compose.ts';
import { kubernetesGuideFacts } from './kubernetes.ts';
import { controlPlaneNames, numbered, type ControlPlane } from './model.ts';
import { stackGuideFacts } from './stack.ts';

export function controlPlaneGuide(plane: ControlPlane, useCase: UseCase): string {
  const context = {
    title: useCase.title,
    usecase: useCase.usecase,
    plane,
    names: controlPlaneNames,
    replicaNumbers: numbered(plane.replicas),
    relayNumbers: numbered(plane.relays),
    compose: composeGuideFacts(plane, useCase),
    kubernetes: kubernetesGuideFacts(plane, useCase),
    stack: stackGuideFacts(plane, useCase),
  };
  return [
    'control-plane.md.hbs',
    'control-plane-compose.md.hbs',
    'control-plane-kubernetes.md.hbs',
    'control-plane-cloudformation.md.hbs',
  ]
    .map((template) => renderTemplate(template, context))
    .join('\n');
}

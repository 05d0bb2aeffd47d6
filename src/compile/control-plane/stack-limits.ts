/**
 * CloudFormation's and EC2's limits for the control plane's stack: the template body that
 * `create-stack --template-body` takes, the description, the counts, and each boot script's user data,
 * base64-encoded (the launch template's form), with every reference filled in at its longest. Only the
 * title and the counts come from the manifest, and the schema bounds both; this says so in numbers.
 */
import type { UseCase } from '../model.ts';
import type { RuleViolation } from '../rule-types.ts';
import { templateSizeViolations, userDataBound } from '../stack/template-limits.ts';
import { cfnLimits, type CfnTemplate } from '../stack/template.ts';
import type { ControlPlane } from './model.ts';
import { planeIds } from './stack-names.ts';
import { controlPlaneStack } from './stack.ts';

/** The launch templates of the stack, each with its user data at its longest: bytes, and bytes once base64-encoded. */
export function userDataBounds(template: CfnTemplate): { id: string; bytes: number; base64: number }[] {
  return [planeIds.controllerLaunchTemplate, planeIds.relayLaunchTemplate].map((id) => {
    const size = userDataBound(template, id);
    return { id, bytes: size, base64: Math.ceil(size / 3) * 4 };
  });
}

export function controlPlaneStackViolations(plane: ControlPlane, useCase: UseCase): RuleViolation[] {
  const template = controlPlaneStack(plane, useCase);
  const found = templateSizeViolations(template, 'the control plane stack', {
    pointer: '/control-plane',
    bodyHint: '',
  });
  for (const bound of userDataBounds(template)) {
    // The title is the one manifest text in the boot scripts.
    if (bound.base64 > cfnLimits.userDataBytes)
      found.push({
        pointer: '/title',
        message:
          `the user data of ${bound.id} could reach ${bound.base64} bytes once base64-encoded, ` +
          `over EC2's limit of ${cfnLimits.userDataBytes}; shorten the title`,
      });
  }
  return found;
}

/**
 * CloudFormation's quotas that a manifest can push a compiled stack past, checked before anything is
 * written so that `create-stack` never is the first to refuse. Each violation names the manifest field
 * that causes it (the control plane's stack, when the manifest asks for one, is checked in
 * control-plane/stack-limits.ts). Pure: a use case in, violations out.
 */
import { controlPlaneStackViolations } from '../control-plane/stack-limits.ts';
import { endpointsOf, type UseCase } from '../model.ts';
import type { RuleViolation } from '../rule-types.ts';
import { outletConfig, stackInletConfig } from '../node-config.ts';
import { portalIds, type NodeRole } from './context.ts';
import { nodeStack } from './stack.ts';
import { bytes, templateSizeViolations, userDataBound } from './template-limits.ts';
import { cfnLimits, type CfnTemplate } from './template.ts';

export function stackLimitViolations(useCase: UseCase): RuleViolation[] {
  const found: RuleViolation[] = [];
  for (const role of ['outlet', 'inlet'] as const) {
    const config = role === 'outlet' ? outletConfig(useCase) : stackInletConfig(useCase);
    found.push(...templateViolations(useCase, role, nodeStack(useCase, role, config)));
  }
  if (useCase.controlPlane) found.push(...controlPlaneStackViolations(useCase.controlPlane, useCase));
  // Both stacks share most causes: say each once.
  const seen = new Set<string>();
  return found.filter((violation) => {
    const key = `${violation.pointer}\u0000${violation.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function templateViolations(useCase: UseCase, role: NodeRole, template: CfnTemplate): RuleViolation[] {
  const found: RuleViolation[] = [];
  const stack = `the ${role} stack`;
  const over = (what: string, size: number, limit: number, unit: string) =>
    `${what} of ${stack} would be ${size} ${unit}, over CloudFormation's limit of ${limit}`;

  found.push(
    ...templateSizeViolations(template, stack, {
      pointer: '',
      bodyHint: " for --template-body; shorten the manifest's texts",
    }),
  );

  const ids = [
    ...Object.keys(template.Parameters),
    ...Object.keys(template.Resources),
    ...Object.keys(template.Outputs),
  ];
  for (const id of ids) {
    if (!/^[A-Za-z0-9]+$/.test(id) || id.length > cfnLimits.logicalIdCharacters) {
      found.push({
        pointer: causeOfParameter(useCase, role, id),
        message:
          `"${id}" is not a CloudFormation logical id (letters and digits, ` +
          `at most ${cfnLimits.logicalIdCharacters})`,
      });
    }
  }

  for (const [id, parameter] of Object.entries(template.Parameters)) {
    const pointer = causeOfParameter(useCase, role, id);
    if (parameter.Description.length > cfnLimits.parameterDescriptionCharacters) {
      found.push({
        pointer,
        message:
          over(
            `the description of parameter ${id}`,
            parameter.Description.length,
            cfnLimits.parameterDescriptionCharacters,
            'characters',
          ) + '; shorten what it quotes from here',
      });
    }
    if (parameter.Default !== undefined && bytes(parameter.Default) > cfnLimits.parameterValueBytes) {
      found.push({
        pointer,
        message: over(
          `the default of parameter ${id}`,
          bytes(parameter.Default),
          cfnLimits.parameterValueBytes,
          'bytes',
        ),
      });
    }
  }

  for (const [id, output] of Object.entries(template.Outputs)) {
    const size = bytes(output.Description);
    if (size > cfnLimits.outputDescriptionBytes) {
      found.push({
        pointer: causeOfOutput(useCase, id),
        message: over(`the description of output ${id}`, size, cfnLimits.outputDescriptionBytes, 'bytes'),
      });
    }
  }

  const userData = userDataBound(template, 'NodeLaunchTemplate');
  if (userData > cfnLimits.userDataBytes) {
    // The title is the one manifest text in the boot script; the node configuration is bounded by its
    // parameter's MaxLength.
    found.push({
      pointer: '/title',
      message:
        `the machine's user data of ${stack} could reach ${userData} bytes, ` +
        `over EC2's limit of ${cfnLimits.userDataBytes}; shorten the title`,
    });
  }
  return found;
}

/** The manifest field a parameter's text comes from. */
function causeOfParameter(useCase: UseCase, role: NodeRole, id: string): string {
  if (id === 'InstanceType') return `/${role}/instance-type`;
  if (id === 'JSONNodeConfig') return useCase.listed ? '/portals' : `/${role}`;
  const endpoint = endpointsOf(useCase).find((candidate) => candidate.parameter === id);
  return endpoint ? endpoint.pointer : '';
}

/** The manifest field an output's description comes from: a private endpoint's service. */
function causeOfOutput(useCase: UseCase, id: string): string {
  const endpoint = endpointsOf(useCase).find((candidate) => portalIds.privateEndpointOutput(candidate.idPart) === id);
  return endpoint ? `${endpoint.pointer}/service` : '';
}

/**
 * CloudFormation's and EC2's limits for the control plane's stack: the template body that
 * `create-stack --template-body` takes, the description, the counts, and each boot script's user data,
 * base64-encoded (the launch template's form), with every reference filled in at its longest. Only the
 * title and the counts come from the manifest, and the schema bounds both; this says so in numbers.
 */
import type { UseCase } from '../model.ts';
import type { RuleViolation } from '../rule-types.ts';
import { printCfnYaml } from '../stack/cfn-yaml.ts';
import { subReferences, type CfnValue } from '../stack/intrinsics.ts';
import { cfnLimits, type CfnTemplate } from '../stack/template.ts';
import type { ControlPlane } from './model.ts';
import { planeIds } from './stack-names.ts';
import { controlPlaneStack } from './stack.ts';

/** What a `${…}` reference to a resource's id, name or attribute may take at most. */
const referenceBound = 256;

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The launch templates of the stack, each with its user data at its longest: bytes, and bytes once base64-encoded. */
export function userDataBounds(template: CfnTemplate): { id: string; bytes: number; base64: number }[] {
  return [planeIds.controllerLaunchTemplate, planeIds.relayLaunchTemplate].map((id) => {
    const data = template.Resources[id]?.Properties.LaunchTemplateData as
      { UserData: { 'Fn::Base64': { 'Fn::Sub': string | readonly [string, Record<string, CfnValue>] } } } | undefined;
    const sub = data?.UserData['Fn::Base64']['Fn::Sub'] ?? '';
    const script = typeof sub === 'string' ? sub : sub[0];
    let size = bytes(script);
    for (const name of subReferences(script)) {
      const parameter = template.Parameters[name];
      size +=
        (parameter ? (parameter.MaxLength ?? cfnLimits.parameterValueBytes) : referenceBound) - bytes(`\${${name}}`);
    }
    return { id, bytes: size, base64: Math.ceil(size / 3) * 4 };
  });
}

export function controlPlaneStackViolations(plane: ControlPlane, useCase: UseCase): RuleViolation[] {
  const template = controlPlaneStack(plane, useCase);
  const found: RuleViolation[] = [];
  const over = (what: string, size: number, limit: number, unit: string) =>
    `${what} of the control plane stack would be ${size} ${unit}, over the limit of ${limit}`;
  const body = bytes(printCfnYaml(template));
  if (body > cfnLimits.templateBodyBytes)
    found.push({
      pointer: '/control-plane',
      message: over('the template', body, cfnLimits.templateBodyBytes, 'bytes'),
    });
  const description = bytes(template.Description);
  if (description > cfnLimits.templateDescriptionBytes)
    found.push({
      pointer: '/title',
      message:
        over('the description', description, cfnLimits.templateDescriptionBytes, 'bytes') + '; shorten the title',
    });
  const counts = [
    ['parameters', Object.keys(template.Parameters).length, cfnLimits.parameters],
    ['resources', Object.keys(template.Resources).length, cfnLimits.resources],
    ['outputs', Object.keys(template.Outputs).length, cfnLimits.outputs],
  ] as const;
  for (const [what, count, limit] of counts)
    if (count > limit)
      found.push({
        pointer: '/control-plane',
        message: `the control plane stack would have ${count} ${what}, over CloudFormation's limit of ${limit}`,
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

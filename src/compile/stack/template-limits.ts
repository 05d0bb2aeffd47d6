/**
 * CloudFormation's and EC2's limits that any compiled template is held to, whatever it deploys (a node's
 * stack, the control plane's): its own sizes, and the longest its boot scripts can grow. Pure.
 */
import type { RuleViolation } from '../rule-types.ts';
import { printCfnYaml } from './cfn-yaml.ts';
import { subReferences } from './intrinsics.ts';
import { cfnLimits, type CfnTemplate } from './template.ts';

/**
 * A value a `${…}` reference in a boot script may take at most: its parameter's limit, or a generous bound
 * for names and ids.
 */
const referenceBound = 256;

export const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The template's own sizes against CloudFormation's limits: its body (as --template-body takes it), its
 * description (which the title is in) and its counts of parameters, resources and outputs. `stack` names
 * it in the messages; `pointer` is the manifest field its body and counts come from.
 */
export function templateSizeViolations(
  template: CfnTemplate,
  stack: string,
  options: { readonly pointer: string; readonly bodyHint: string },
): RuleViolation[] {
  const found: RuleViolation[] = [];
  const over = (what: string, size: number, limit: number) =>
    `${what} of ${stack} would be ${size} bytes, over CloudFormation's limit of ${limit}`;
  const body = bytes(printCfnYaml(template));
  if (body > cfnLimits.templateBodyBytes)
    found.push({
      pointer: options.pointer,
      message: over('the template', body, cfnLimits.templateBodyBytes) + options.bodyHint,
    });
  const description = bytes(template.Description);
  if (description > cfnLimits.templateDescriptionBytes)
    found.push({
      pointer: '/title',
      message: over('the description', description, cfnLimits.templateDescriptionBytes) + '; shorten the title',
    });
  const counts = [
    ['parameters', Object.keys(template.Parameters).length, cfnLimits.parameters],
    ['resources', Object.keys(template.Resources).length, cfnLimits.resources],
    ['outputs', Object.keys(template.Outputs).length, cfnLimits.outputs],
  ] as const;
  for (const [what, count, limit] of counts)
    if (count > limit)
      found.push({
        pointer: options.pointer,
        message: `${stack} would have ${count} ${what}, over CloudFormation's limit of ${limit}`,
      });
  return found;
}

/** The largest size, in bytes, that a launch template's boot script can reach once Fn::Sub fills in every reference. */
export function userDataBound(template: CfnTemplate, launchTemplate: string): number {
  const launch = template.Resources[launchTemplate]?.Properties.LaunchTemplateData as
    { UserData?: { 'Fn::Base64'?: { 'Fn::Sub'?: string | readonly [string, unknown] } } } | undefined;
  const sub = launch?.UserData?.['Fn::Base64']?.['Fn::Sub'] ?? '';
  // A variable defined beside the template (a private endpoint's name) is bounded like a reference.
  const script = typeof sub === 'string' ? sub : sub[0];
  let size = bytes(script);
  for (const name of subReferences(script)) {
    const parameter = template.Parameters[name];
    const bound = parameter ? (parameter.MaxLength ?? cfnLimits.parameterValueBytes) : referenceBound;
    size += bound - bytes(`\${${name}}`);
  }
  return size;
}

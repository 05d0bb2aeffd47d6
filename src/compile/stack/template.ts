/**
 * CloudFormation templates as typed objects built from fragments. Each generator returns a fragment;
 * `mergeFragments` combines them and refuses a logical id defined twice.
 */
import type { CfnValue } from './intrinsics.ts';

/** CloudFormation and EC2 quotas (AWS documentation, "CloudFormation quotas" and "EC2 user data"). */
export const cfnLimits = {
  /** `create-stack --template-body`, which the guides use; a template uploaded to S3 may reach 1 MB. */
  templateBodyBytes: 51_200,
  templateDescriptionBytes: 1_024,
  parameters: 200,
  resources: 500,
  outputs: 200,
  parameterDescriptionCharacters: 4_000,
  parameterValueBytes: 4_096,
  outputDescriptionBytes: 1_024,
  logicalIdCharacters: 255,
  /** EC2 user data, before base64 encoding. */
  userDataBytes: 16_384,
} as const;

export interface CfnParameter {
  readonly Type: string;
  readonly Description: string;
  readonly Default?: string;
  readonly NoEcho?: boolean;
  readonly AllowedPattern?: string;
  readonly ConstraintDescription?: string;
  readonly MinLength?: number;
  readonly MaxLength?: number;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties: Readonly<Record<string, CfnValue>>;
  readonly DependsOn?: readonly string[];
  /** Name of a condition under Conditions: the resource exists only when it holds. */
  readonly Condition?: string;
  readonly CreationPolicy?: Readonly<Record<string, CfnValue>>;
  /** How an update replaces an autoscaling group's machines (AutoScalingRollingUpdate). */
  readonly UpdatePolicy?: Readonly<Record<string, CfnValue>>;
  /** What happens to the resource when the stack is deleted (default Delete). */
  readonly DeletionPolicy?: 'Delete' | 'Retain' | 'Snapshot';
  /** What happens to the old resource when an update replaces it (default Delete). */
  readonly UpdateReplacePolicy?: 'Delete' | 'Retain' | 'Snapshot';
}

/**
 * For what a stack cannot re-create: kept when the stack is deleted or an update replaces it. The
 * node's identity (on the file system, sealed by the key in the sealing-key secret) was bought with a
 * one-use ticket; the status log is the record of what happened. The guides say how to remove them.
 * EFS file systems, log groups and secrets have no Snapshot policy, so Retain is the careful choice.
 */
export const keepOnDeleteAndReplace = { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' } as const;

export interface CfnOutput {
  readonly Description: string;
  readonly Value: CfnValue;
  /** Name of a condition under Conditions: the output exists only when it holds. */
  readonly Condition?: string;
}

export interface CfnFragment {
  readonly Parameters?: Readonly<Record<string, CfnParameter>>;
  readonly Conditions?: Readonly<Record<string, CfnValue>>;
  readonly Resources?: Readonly<Record<string, CfnResource>>;
  readonly Outputs?: Readonly<Record<string, CfnOutput>>;
}

export interface CfnTemplate {
  readonly AWSTemplateFormatVersion: '2010-09-09';
  readonly Description: string;
  readonly Metadata: Readonly<Record<string, CfnValue>>;
  readonly Parameters: Readonly<Record<string, CfnParameter>>;
  readonly Conditions?: Readonly<Record<string, CfnValue>>;
  readonly Resources: Readonly<Record<string, CfnResource>>;
  readonly Outputs: Readonly<Record<string, CfnOutput>>;
}

type Section = 'Parameters' | 'Conditions' | 'Resources' | 'Outputs';
const sections: readonly Section[] = ['Parameters', 'Conditions', 'Resources', 'Outputs'];

export function mergeFragments(fragments: readonly CfnFragment[]): Required<CfnFragment> {
  const merged = { Parameters: {}, Conditions: {}, Resources: {}, Outputs: {} } as Record<
    Section,
    Record<string, unknown>
  >;
  // Parameters and resources share one namespace of logical ids; conditions and outputs have their own.
  const defined = (id: string, section: Section) =>
    section === 'Parameters' || section === 'Resources'
      ? id in merged.Parameters || id in merged.Resources
      : id in merged[section];
  for (const fragment of fragments) {
    for (const section of sections) {
      for (const [id, value] of Object.entries(fragment[section] ?? {})) {
        if (defined(id, section)) throw new Error(`duplicate logical id ${id} in ${section}`);
        merged[section][id] = value;
      }
    }
  }
  return merged as Required<CfnFragment>;
}

export const tags = (entries: Readonly<Record<string, CfnValue>>): CfnValue =>
  Object.entries(entries).map(([Key, Value]) => ({ Key, Value }));

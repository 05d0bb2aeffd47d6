/** A whole node stack: the fragments of spec 2.3–2.4 merged into one CloudFormation template. */
import type { UseCaseManifest } from '../../shared/types/manifest.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { computeFragment } from './compute.ts';
import { directPortOf, type NodeRole, type StackContext } from './context.ts';
import { monitoringFragment } from './monitoring.ts';
import { networkFragment } from './network.ts';
import { parameterInterface, parametersFragment } from './parameters.ts';
import { privateEndpointFragment } from './private-endpoint.ts';
import { storageFragment } from './storage.ts';
import { mergeFragments, type CfnTemplate } from './template.ts';

export function nodeStack(manifest: UseCaseManifest, role: NodeRole, nodeConfig: NodeConfig): CfnTemplate {
  const context: StackContext = {
    manifest,
    role,
    nodeConfig,
    endpoint: role === 'outlet' ? manifest.outlet.endpoint : undefined,
    directPort: role === 'inlet' ? directPortOf(nodeConfig) : undefined,
  };
  const merged = mergeFragments([
    parametersFragment(context),
    networkFragment(context),
    storageFragment(),
    privateEndpointFragment(context),
    monitoringFragment(),
    computeFragment(context),
  ]);
  const { Parameters, Conditions, Resources, Outputs } = merged;
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: `Portal ${role} node: ${manifest.title} (stack name suggestion: ${manifest.usecase}-${role})`,
    Metadata: parameterInterface(Object.keys(Parameters), context.endpoint),
    Parameters,
    ...(Object.keys(Conditions).length > 0 ? { Conditions } : {}),
    Resources,
    Outputs,
  };
}

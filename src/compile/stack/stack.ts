/** A whole node stack: the fragments of spec 2.3–2.4 merged into one CloudFormation template. */
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { endpointsOf, type UseCase } from '../model.ts';
import { directPortsOf } from '../node-config.ts';
import { computeFragment } from './compute.ts';
import type { NodeRole, StackContext } from './context.ts';
import { monitoringFragment } from './monitoring.ts';
import { networkFragment } from './network.ts';
import { parameterInterface, parametersFragment } from './parameters.ts';
import { privateEndpointFragment } from './private-endpoint.ts';
import { storageFragment } from './storage.ts';
import { mergeFragments, type CfnTemplate } from './template.ts';

export function nodeStack(useCase: UseCase, role: NodeRole, nodeConfig: NodeConfig): CfnTemplate {
  const context: StackContext = {
    useCase,
    role,
    nodeConfig,
    endpoints: role === 'outlet' ? endpointsOf(useCase) : [],
    directPorts: role === 'inlet' ? directPortsOf(nodeConfig) : [],
  };
  const merged = mergeFragments([
    parametersFragment(context),
    networkFragment(context),
    storageFragment(),
    privateEndpointFragment(context),
    monitoringFragment(role === 'outlet' ? useCase.outletReplicas : 1),
    computeFragment(context),
  ]);
  const { Parameters, Conditions, Resources, Outputs } = merged;
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: `Portal ${role} node: ${useCase.title} (stack name suggestion: ${useCase.usecase}-${role})`,
    Metadata: parameterInterface(Object.keys(Parameters), context.endpoints),
    Parameters,
    ...(Object.keys(Conditions).length > 0 ? { Conditions } : {}),
    Resources,
    Outputs,
  };
}

/**
 * What the text outputs say: the ticket commands, the stack launch commands and the values the guide
 * and tickets.sh quote. Pure: a manifest in, a template context out.
 */
import { product } from '../shared/product.ts';
import type { InstanceTypeManifest } from '../shared/types/manifest.ts';
import { compileDefaults } from './defaults.ts';
import type { Portal, Ticket, UseCase } from './model.ts';
import { directDialBudgetMs } from '../shared/limits.ts';
import { alarmMinutes, alarmPeriodSeconds, alarmThreshold, nodeUpMetric } from './stack/monitoring.ts';
import { fileSystemWait } from './stack/compute.ts';
import { ids } from './stack/context.ts';
import { nodeStack } from './stack/stack.ts';
import { stackDirectAddress, stackInletConfig } from './node-config.ts';

/** The words of the `portal project ticket` command; templates quote each (shwords). */
export function ticketCommand(ticket: Ticket): string[] {
  return [
    'portal',
    'project',
    'ticket',
    '--expires-in',
    ticket.expiresIn,
    '--usage-count',
    String(ticket.usageCount),
    '--attribute',
    ticket.attribute,
    ...ticket.relays.flatMap((relay) => ['--relay', relay]),
    ...(ticket.tls ? ['--tls'] : []),
  ];
}

/** The request body of spec 4.4, as the guide sends it. */
export const modelRequestBody = JSON.stringify({
  inputText: 'Explain in one sentence what an end-to-end encrypted tunnel is.',
  textGenerationConfig: { maxTokenCount: 256, temperature: 0.5, topP: 0.9 },
});

/** Placeholder the guide gives for the outlet's network; the administrator fills it in. */
export const outletCidrPlaceholder = '<outlet_cidr>';

/**
 * The --parameters words of the update-stack that opens a running inlet stack's direct path: the outlet
 * network, and every other parameter kept as it is (update-stack resets one it is not told about).
 */
export function directUpdateParameters(useCase: UseCase): string[] {
  const parameterIds = Object.keys(nodeStack(useCase, 'inlet', stackInletConfig(useCase)).Parameters);
  return [
    `ParameterKey=${ids.outletCidr},ParameterValue=${outletCidrPlaceholder}`,
    ...parameterIds.filter((id) => id !== ids.outletCidr).map((id) => `ParameterKey=${id},UsePreviousValue=true`),
  ];
}

export function guideContext(useCase: UseCase) {
  const portal = useCase.portals[0] as Portal;
  const { outlet, inlet, verification } = portal;
  const endpoint = outlet.endpoint;
  const container = useCase.container;
  return {
    usecase: useCase.usecase,
    title: useCase.title,
    installUrl: compileDefaults.installUrl,
    networkDomain: compileDefaults.networkDomain,
    statusPort: useCase.statusPort,
    outletTicketCommand: ticketCommand(useCase.tickets.outlet),
    inletTicketCommand: ticketCommand(useCase.tickets.inlet),
    outletTarget: outlet.to,
    outletTls: outlet.tls,
    outletAttribute: useCase.tickets.outlet.attribute,
    inletAttribute: useCase.tickets.inlet.attribute,
    relay: outlet.relay,
    inletPort: inlet.port,
    verifyUrl: verification.kind === 'webhook' ? `http://localhost:${inlet.port}${verification.path}` : '',
    inletTls: inlet.tls,
    outletInstance: instanceText(useCase.instanceTypes.outlet),
    inletInstance: instanceText(useCase.instanceTypes.inlet),
    outletInstanceType: useCase.instanceTypes.outlet.default,
    inletInstanceType: useCase.instanceTypes.inlet.default,
    endpoint: endpoint
      ? {
          parameter: endpoint.parameter ?? false,
          fromStack: endpoint.source === 'vpc-endpoint',
          service: endpoint.service ?? '',
          placeholder: endpoint.placeholder,
          label: endpoint.label,
          example: endpoint.example ?? `<${endpoint.placeholder.toLowerCase()}>`,
          carriesPort: endpoint.port !== undefined,
        }
      : false,
    container: container
      ? {
          image: container.image ?? compileDefaults.containerImage,
          hostNetwork: container['network-mode'] !== 'bridge',
          psqlClient: container['psql-client'] !== undefined,
          ticketInConfig: container['ticket-passing'] === 'node-config',
        }
      : false,
    verification: { ...verification, label: portal.label },
    modelId: verification.kind === 'invoke-model' ? verification['model-id'] : '',
    modelRequestBody,
    direct: {
      port: product.directPort,
      address: stackDirectAddress,
      dialMs: directDialBudgetMs,
      parameter: ids.outletCidr,
      placeholder: outletCidrPlaceholder,
      updateParameters: directUpdateParameters(useCase),
    },
    setupCompletedLine: product.setupCompletedLine,
    nodeUpLine: product.nodeUpLine,
    alarm: {
      minutes: alarmMinutes,
      periodSeconds: alarmPeriodSeconds,
      threshold: alarmThreshold,
      metric: `${product.metricNamespace}/${nodeUpMetric}`,
    },
    fileSystemWaitMinutes: (fileSystemWait.attempts * fileSystemWait.seconds) / 60,
    fileSystemWaitSeconds: fileSystemWait.seconds,
  };
}

function instanceText(instanceType: InstanceTypeManifest): string {
  const note = instanceType.note ? ` (${instanceType.note})` : '';
  const alternatives = instanceType.alternatives?.length ? `; ${instanceType.alternatives.join(' or ')} also suit` : '';
  return `${instanceType.default}${note}${alternatives}`;
}

/**
 * What the text outputs say: the ticket commands, the stack launch commands and the values the guide
 * and tickets.sh quote. Pure: a manifest in, a template context out.
 */
import { product } from '../shared/product.ts';
import type { TicketManifest, UseCaseManifest } from '../shared/types/manifest.ts';
import { compileDefaults } from './defaults.ts';
import { directDialBudgetMs } from '../shared/limits.ts';
import { alarmMinutes, alarmPeriodSeconds, alarmThreshold, nodeUpMetric } from './stack/monitoring.ts';
import { fileSystemWait } from './stack/compute.ts';
import { ids } from './stack/context.ts';
import { nodeStack } from './stack/stack.ts';
import { stackDirectAddress, stackInletConfig } from './node-config.ts';

/** The words of the `portal project ticket` command; templates quote each (shwords). */
export function ticketCommand(ticket: TicketManifest): string[] {
  return [
    'portal',
    'project',
    'ticket',
    '--expires-in',
    ticket['expires-in'],
    '--usage-count',
    String(ticket['usage-count']),
    '--attribute',
    ticket.attribute,
    ...(ticket.relay ? ['--relay', ticket.relay] : []),
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
export function directUpdateParameters(manifest: UseCaseManifest): string[] {
  const parameterIds = Object.keys(nodeStack(manifest, 'inlet', stackInletConfig(manifest)).Parameters);
  return [
    `ParameterKey=${ids.outletCidr},ParameterValue=${outletCidrPlaceholder}`,
    ...parameterIds.filter((id) => id !== ids.outletCidr).map((id) => `ParameterKey=${id},UsePreviousValue=true`),
  ];
}

export function guideContext(manifest: UseCaseManifest) {
  const { outlet, inlet, container, verification } = manifest;
  const endpoint = outlet.endpoint;
  return {
    usecase: manifest.usecase,
    title: manifest.title,
    installUrl: compileDefaults.installUrl,
    networkDomain: compileDefaults.networkDomain,
    statusPort: manifest['status-port'],
    outletTicketCommand: ticketCommand(manifest.tickets.outlet),
    inletTicketCommand: ticketCommand(manifest.tickets.inlet),
    outletTarget: outlet.to,
    outletTls: outlet.tls,
    outletAttribute: manifest.tickets.outlet.attribute,
    inletAttribute: manifest.tickets.inlet.attribute,
    relay: outlet.relay,
    inletPort: inlet.port,
    verifyUrl: verification.kind === 'webhook' ? `http://localhost:${inlet.port}${verification.path}` : '',
    inletTls: inlet.tls,
    outletInstance: instanceText(outlet['instance-type']),
    inletInstance: instanceText(inlet['instance-type']),
    outletInstanceType: outlet['instance-type'].default,
    inletInstanceType: inlet['instance-type'].default,
    endpoint: endpoint
      ? {
          parameter: endpoint.parameter ?? false,
          fromStack: endpoint.source === 'vpc-endpoint',
          service: endpoint.service ?? '',
          placeholder: endpoint.placeholder,
          label: endpoint.label,
          example: endpoint.example,
          carriesPort: endpoint.port !== undefined,
        }
      : false,
    container: container
      ? {
          image: container.image ?? compileDefaults.containerImage,
          hostNetwork: container['network-mode'] === 'host',
          psqlClient: container['psql-client'] !== undefined,
          ticketInConfig: container['ticket-passing'] === 'node-config',
        }
      : false,
    verification,
    modelId: verification.kind === 'invoke-model' ? verification['model-id'] : '',
    modelRequestBody,
    direct: {
      port: product.directPort,
      address: stackDirectAddress,
      dialMs: directDialBudgetMs,
      parameter: ids.outletCidr,
      placeholder: outletCidrPlaceholder,
      updateParameters: directUpdateParameters(manifest),
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

function instanceText(instanceType: UseCaseManifest['inlet']['instance-type']): string {
  const note = instanceType.note ? ` (${instanceType.note})` : '';
  const alternatives = instanceType.alternatives?.length ? `; ${instanceType.alternatives.join(' or ')} also suit` : '';
  return `${instanceType.default}${note}${alternatives}`;
}

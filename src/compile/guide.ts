/**
 * What the text outputs say: the ticket commands, the stack launch commands and the values the guide
 * and tickets.sh quote. Pure: a use case in, a template context out.
 */
import { product } from '../shared/product.ts';
import type { InstanceTypeManifest } from '../shared/types/manifest.ts';
import { compileDefaults } from './defaults.ts';
import { anyTlsInlet, endpointsOf, type Portal, type Ticket, type UseCase } from './model.ts';
import { kubernetesGuide } from './kubernetes-guide.ts';
import { portalCheck } from './verification.ts';
import { directDialBudgetMs } from '../shared/limits.ts';
import { alarmMinutes, alarmPeriodSeconds, alarmThreshold, nodeUpMetric } from './stack/monitoring.ts';
import { fileSystemWait } from './stack/compute.ts';
import { ids } from './stack/context.ts';
import { nodeStack } from './stack/stack.ts';
import { directPortAt, outletStatusPort, stackDirectAddress, stackInletConfig } from './node-config.ts';

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
    ...ticket.attributes.flatMap((attribute) => ['--attribute', attribute]),
    ...ticket.relays.flatMap((relay) => ['--relay', relay]),
    ...(ticket.tls ? ['--tls'] : []),
  ];
}

/**
 * The `portal project retire` line that takes out what `ticketCommand(ticket)` issued: its unused
 * tickets and the nodes enrolled with them, with the use case named as the reason.
 */
export function retireCommand(ticket: Ticket, usecase: string): string[] {
  return [
    'portal',
    'project',
    'retire',
    ...ticket.attributes.flatMap((attribute) => ['--attribute', attribute]),
    ...ticket.relays.flatMap((relay) => ['--relay', relay]),
    ...(ticket.tls ? ['--tls'] : []),
    '--reason',
    `use case ${usecase}: ./tickets.sh cleanup`,
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

/** What a guide says for one portal. */
function portalContext(useCase: UseCase, portal: Portal) {
  const { outlet, inlet } = portal;
  const endpoint = outlet.endpoint;
  return {
    name: portal.name,
    target: outlet.to,
    outletTls: outlet.tls,
    relay: outlet.relay,
    inletPort: inlet.port,
    inletTls: inlet.tls,
    label: portal.label,
    endpoint: endpoint
      ? {
          parameter: endpoint.parameter ?? false,
          fromStack: endpoint.source === 'vpc-endpoint',
          service: endpoint.service ?? '',
          placeholder: endpoint.placeholder,
          label: endpoint.label,
          example: endpoint.example ?? false,
          carriesPort: endpoint.port !== undefined,
        }
      : false,
    check: portalCheck(portal, useCase.listed),
    /** The words of the portal's row in the status table. */
    verificationKind: portal.verification.kind,
    receiver: useCase.listed ? `webhook_receiver_${portal.name.replace(/-/g, '_')}.py` : 'webhook_receiver.py',
  };
}

export function guideContext(useCase: UseCase) {
  const portals = useCase.portals.map((portal) => portalContext(useCase, portal));
  const first = portals[0] as ReturnType<typeof portalContext>;
  const container = useCase.container ?? {};
  const endpoints = endpointsOf(useCase);
  const { installUrl, controller } = useCase.settings;
  return {
    usecase: useCase.usecase,
    title: useCase.title,
    listed: useCase.listed,
    installUrl: installUrl ?? false,
    installUrlPlaceholder,
    controller: controller ?? false,
    controllerPort: controller ? controller.slice(controller.lastIndexOf(':') + 1) : '',
    controllerPlaceholder,
    networkDomain: compileDefaults.networkDomain,
    statusPort: useCase.statusPort,
    /** A status port for the second node on one machine, as the guide suggests it: past an outlet pool's. */
    otherStatusPort:
      useCase.statusPort + useCase.outletReplicas <= 65535
        ? useCase.statusPort + useCase.outletReplicas
        : useCase.statusPort - 1,
    outletPool: outletPoolGuide(useCase),
    outletTicketCommand: ticketCommand(useCase.tickets.outlet),
    inletTicketCommand: ticketCommand(useCase.tickets.inlet),
    outletRetireCommand: retireCommand(useCase.tickets.outlet, useCase.usecase),
    inletRetireCommand: retireCommand(useCase.tickets.inlet, useCase.usecase),
    outletAttribute: useCase.tickets.outlet.attributes.join(', '),
    inletAttribute: useCase.tickets.inlet.attributes.join(', '),
    // What each side admits, as its allow says (the other ticket's attribute unless an expression is given).
    outletAdmits: distinct(useCase.portals.map((portal) => portal.outlet.allow)),
    inletAdmits: distinct(useCase.portals.map((portal) => portal.inlet.allow)),
    relays: useCase.tickets.outlet.relays,
    anyTls: anyTlsInlet(useCase),
    portals,
    /** The single portal's, or the first's: sections that speak of one portal use it. */
    first,
    endpoints: endpoints.map((endpoint) => ({
      placeholder: endpoint.placeholder,
      parameter: endpoint.parameter ?? false,
      label: endpoint.label,
      example: endpoint.example ?? false,
      fromStack: endpoint.source === 'vpc-endpoint',
    })),
    parameterEndpoints: endpoints.flatMap((endpoint) =>
      endpoint.parameter === undefined
        ? []
        : [
            {
              parameter: endpoint.parameter,
              placeholder: endpoint.placeholder,
              label: endpoint.label,
              example: endpoint.example ?? false,
            },
          ],
    ),
    webhooks: portals.filter((portal) => portal.check.kind === 'webhook'),
    checks: portals.map((portal) => portal.check),
    tcpChecks: portals.some((portal) => portal.check.kind === 'tcp'),
    needsProjectCa: portals.some((portal) => portal.inletTls && portal.check.kind !== 'invoke-model'),
    outletInstance: instanceText(useCase.instanceTypes.outlet),
    inletInstance: instanceText(useCase.instanceTypes.inlet),
    outletInstanceType: useCase.instanceTypes.outlet.default,
    inletInstanceType: useCase.instanceTypes.inlet.default,
    container: {
      image: container.image ?? compileDefaults.containerImage,
      hostNetwork: container['network-mode'] !== 'bridge',
      psqlClient: container['psql-client'] !== undefined,
      client: container.client !== undefined,
      ticketInConfig: container['ticket-passing'] === 'node-config',
    },
    kubernetes: kubernetesGuide(useCase),
    modelRequestBody,
    direct: {
      port: product.directPort,
      lastPort: directPortAt(useCase.portals.length - 1),
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

/** What the guide writes where the administrator fills in an address the compiler was not given. */
export const installUrlPlaceholder = '<install_url>';
export const controllerPlaceholder = '<controller_host>:4000';

function instanceText(instanceType: InstanceTypeManifest): string {
  const note = instanceType.note ? ` (${instanceType.note})` : '';
  const alternatives = instanceType.alternatives?.length ? `; ${instanceType.alternatives.join(' or ')} also suit` : '';
  return `${instanceType.default}${note}${alternatives}`;
}

/** The allows of the portals, each once, as one table cell lists them. */
const distinct = (allows: readonly string[]): string => [...new Set(allows)].join('; ');

/** What the guide says of an outlet pool (outlet.replicas above 1); false for a single outlet. */
function outletPoolGuide(useCase: UseCase) {
  const replicas = useCase.outletReplicas;
  if (replicas === 1) return false;
  return {
    replicas,
    containers: Array.from({ length: replicas }, (_, index) => `${useCase.usecase}-outlet-${index + 1}`),
    lastStatusPort: outletStatusPort(useCase.statusPort, replicas),
  };
}

/**
 * The container inlet of spec 2.5 as a compose file: the `node` service and, where the use case has
 * one, a `psql-client` or a `client` beside it; and the container outlet, a `node` service alone.
 * Compose interpolates `${…}` when `docker-compose up` runs, which is how the ticket from the shell's
 * ENROLLMENT_TICKET (and an endpoint's value) reaches the node's environment. The ticket is never an
 * argument: a container's command line shows in the host's ps.
 */
import type { ContainerManifest } from '../shared/types/manifest.ts';
import { Document } from 'yaml';
import { formatDuration } from '../shared/duration.ts';
import { defaultDrainMs } from '../shared/limits.ts';
import { portableYamlOptions, sortKeys } from '../shared/serialize.ts';
import { stopWaitMs } from '../shared/stop-wait.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { compileDefaults } from './defaults.ts';
import { endpointsOf, type NodeRole, type UseCase } from './model.ts';
import { containerInletConfig, outletConfig, outletReplicaConfig } from './node-config.ts';

export interface ComposeService {
  readonly image: string;
  readonly container_name: string;
  readonly network_mode: 'host' | 'bridge';
  readonly command: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly ports?: readonly string[];
  readonly depends_on?: readonly string[];
  readonly restart?: 'unless-stopped';
  /** How long `docker stop` and `docker-compose down` wait after SIGTERM before they kill. */
  readonly stop_grace_period?: string;
  readonly volumes?: readonly string[];
}

export interface ComposeFile {
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, Readonly<Record<string, never>>>>;
}

/**
 * The named volume that holds the node's sealing key, apart from the state volume (the image's
 * anonymous /var/lib/portal): a copy of the state alone cannot open the node's identity.
 */
export const keysVolume = 'portal-keys';

/**
 * Docker waits 10 s after SIGTERM by default, exactly the node's default drain, so a node with a
 * connection open would be killed (exit 137) as the drain ends: the drain and a margin to close.
 */
export const nodeStopGracePeriod = formatDuration(stopWaitMs(defaultDrainMs));

/** How the compose file refers to the ticket; compose substitutes it from the shell, or stops if it is unset. */
export const ticketVariable = (role: NodeRole): string =>
  `\${ENROLLMENT_TICKET:?set ENROLLMENT_TICKET to the contents of ${role}.ticket}`;

/** A command that keeps a client container running for `docker exec`. */
const idle = ['/bin/sh', '-c', 'while true; do sleep 30; done'];

export function composeFile(useCase: UseCase, container: ContainerManifest): ComposeFile {
  const services: Record<string, ComposeService> = { node: nodeService(useCase, container) };
  if (container['psql-client']) {
    services['psql-client'] = {
      image: container['psql-client'].image,
      container_name: 'psql-client',
      network_mode: 'host',
      depends_on: ['node'],
      command: idle,
    };
  }
  if (container.client) {
    services.client = {
      image: container.client.image,
      container_name: `${useCase.usecase}-client`,
      network_mode: 'host',
      depends_on: ['node'],
      command: idle,
    };
  }
  return { services, volumes: { [keysVolume]: {} } };
}

/**
 * The outlet as a container: on the host's network, so that a target on the host (localhost) and
 * anything the host reaches is reachable, and it opens no port. Each endpoint placeholder's value comes
 * from the shell's variable of the same name, which the node substitutes into its targets. A pool of
 * replicas is one service each (node-1, node-2, …): each its own node, with its own state and keys
 * volumes and, on the shared network, its own status port; all enroll with the one ticket.
 */
export function outletComposeFile(useCase: UseCase): ComposeFile {
  if (useCase.outletReplicas === 1) {
    return { services: { node: outletService(useCase, outletConfig(useCase)) }, volumes: { [keysVolume]: {} } };
  }
  const services: Record<string, ComposeService> = {};
  const volumes: Record<string, Record<string, never>> = {};
  for (let replica = 1; replica <= useCase.outletReplicas; replica++) {
    services[`node-${replica}`] = outletService(useCase, outletReplicaConfig(useCase, replica), replica);
    volumes[`${keysVolume}-${replica}`] = {};
  }
  return { services, volumes };
}

function outletService(useCase: UseCase, config: NodeConfig, replica?: number): ComposeService {
  const environment: Record<string, string> = {
    ENROLLMENT_TICKET: ticketVariable('outlet'),
    NODE_LOGGING: 'true',
    NODE_LOG_LEVEL: useCase.container?.['log-level'] ?? 'info',
    PORTAL_SEALING_KEY_FILE: compileDefaults.containerSealingKeyFile,
  };
  for (const endpoint of endpointsOf(useCase)) {
    // The message is fixed text: a label may hold characters that compose would read.
    const name = endpoint.placeholder;
    environment[name] = `\${${name}:?set ${name} to the endpoint's value, as README.md says}`;
  }
  const suffix = replica === undefined ? '' : `-${replica}`;
  return {
    image: useCase.container?.image ?? compileDefaults.containerImage,
    container_name: `${useCase.usecase}-outlet${suffix}`,
    network_mode: 'host',
    restart: 'unless-stopped',
    stop_grace_period: nodeStopGracePeriod,
    environment,
    volumes: [`${keysVolume}${suffix}:${compileDefaults.containerKeysDirectory}`],
    command: ['node', 'create', '--foreground', '--configuration', nodeConfigYaml(config)],
  };
}

function nodeService(useCase: UseCase, container: ContainerManifest): ComposeService {
  const environment: Record<string, string> = {
    ENROLLMENT_TICKET: ticketVariable('inlet'),
    NODE_LOGGING: 'true',
    NODE_LOG_LEVEL: container['log-level'] ?? 'info',
    PORTAL_SEALING_KEY_FILE: compileDefaults.containerSealingKeyFile,
  };
  if (container['developer-variable']) environment.NODE_DEVELOPER = '${NODE_DEVELOPER:-false}';
  const bridge = container['network-mode'] === 'bridge';
  return {
    image: container.image ?? compileDefaults.containerImage,
    container_name: `${useCase.usecase}-inlet`,
    network_mode: bridge ? 'bridge' : 'host',
    // A portal outlives a reboot of the Docker host, as the stacks' node outlives its machine.
    restart: 'unless-stopped',
    stop_grace_period: nodeStopGracePeriod,
    ...(bridge
      ? { ports: container.publish ?? useCase.portals.map(({ inlet }) => `${inlet.port}:${inlet.port}`) }
      : {}),
    environment,
    volumes: [`${keysVolume}:${compileDefaults.containerKeysDirectory}`],
    command: ['node', 'create', '--foreground', ...configurationArguments(useCase, container)],
  };
}

/** The configuration, as --node-config (spec 2.5) or --configuration; the ticket is in neither. */
function configurationArguments(useCase: UseCase, container: ContainerManifest): string[] {
  const flag = container['ticket-passing'] === 'node-config' ? '--node-config' : '--configuration';
  return [flag, nodeConfigYaml(containerInletConfig(useCase))];
}

function nodeConfigYaml(config: NodeConfig): string {
  return new Document(sortKeys(config), { version: portableYamlOptions.version }).toString({
    lineWidth: portableYamlOptions.lineWidth,
  });
}

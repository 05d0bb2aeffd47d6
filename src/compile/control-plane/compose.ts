/**
 * The control plane on one machine (control-plane/compose.yaml): PostgreSQL, the controller replicas
 * and the relays, all on the host's network (replica n on port + n − 1, relay n on relay-port + n − 1,
 * so that each announces an address of its own). The database listens on loopback only; its password
 * and the controllers' sealing key are files the administrator makes beside the compose file, handed
 * to the containers as compose secrets, never in the file or on a command line. The relays wait in the
 * `relays` profile: they enroll with a relay ticket, which exists only once an administrator enrolled
 * with the replicas' admin code.
 */
import { formatDuration } from '../../shared/duration.ts';
import { defaultDrainMs } from '../../shared/limits.ts';
import { stopWaitMs } from '../../shared/stop-wait.ts';
import { compileDefaults } from '../defaults.ts';
import { statusAnswers } from '../k8s/probes.ts';
import type { UseCase } from '../model.ts';
import { composeDatabasePort } from '../rules/control-plane.ts';
import { controlPlaneNames, numbered, relayPortOf, replicaPort, type ControlPlane } from './model.ts';

/** The PostgreSQL image: a major version the store supports (12 on), pinned so that its data stays readable. */
export const databaseImage = 'postgres:16';

/** Compose's names for the two secret files, and where a container finds each. */
export const composeSecrets = {
  databasePassword: 'database-password',
  sealingKey: 'controller-seal-key',
} as const;
const secretPath = (name: string): string => `/run/secrets/${name}`;

/** The profile the relays wait in until their ticket exists. */
export const relaysProfile = 'relays';

/** Where a relay container keeps its sealing key: a volume of its own, apart from its identity's. */
const relayKeysDirectory = `${compileDefaults.stateDirectory}/keys`;

/** The environment variable the relay ticket comes from; unset once the relays are enrolled. */
export const relayTicketVariable = 'RELAY_TICKET';

const stopGracePeriod = formatDuration(stopWaitMs(defaultDrainMs));

interface Service {
  readonly image: string;
  readonly container_name: string;
  readonly network_mode: 'host';
  readonly restart: 'unless-stopped';
  readonly command: readonly string[];
  readonly [key: string]: unknown;
}

/** Each service's container name: `<usecase>-<service>`, as the guide's `docker logs` lines name them. */
export const containerName = (useCase: UseCase, service: string): string => `${useCase.usecase}-${service}`;

export const serviceNames = {
  database: 'database',
  controller: (n: number) => `controller-${n}`,
  relay: (n: number) => `relay-${n}`,
} as const;

export function controlPlaneCompose(plane: ControlPlane, useCase: UseCase): Record<string, unknown> {
  const services: Record<string, Service> = { [serviceNames.database]: databaseService(useCase) };
  const volumes: Record<string, Record<string, never>> = { database: {} };
  for (const n of numbered(plane.replicas)) services[serviceNames.controller(n)] = controllerService(plane, useCase, n);
  for (const n of numbered(plane.relays)) {
    services[serviceNames.relay(n)] = relayService(plane, useCase, n);
    volumes[`relay-${n}-state`] = {};
    volumes[`relay-${n}-keys`] = {};
  }
  return {
    services,
    secrets: {
      [composeSecrets.databasePassword]: { file: `./${controlPlaneNames.databasePasswordFile}` },
      [composeSecrets.sealingKey]: { file: `./${controlPlaneNames.sealingKeyFile}` },
    },
    volumes,
  };
}

function databaseService(useCase: UseCase): Service {
  return {
    image: databaseImage,
    container_name: containerName(useCase, serviceNames.database),
    network_mode: 'host',
    restart: 'unless-stopped',
    // Loopback only: the replicas are on this machine, and nothing else needs the database.
    command: ['postgres', '-c', 'listen_addresses=127.0.0.1', '-c', `port=${composeDatabasePort}`],
    environment: {
      POSTGRES_USER: controlPlaneNames.databaseUser,
      POSTGRES_DB: controlPlaneNames.databaseName,
      POSTGRES_PASSWORD_FILE: secretPath(composeSecrets.databasePassword),
    },
    secrets: [composeSecrets.databasePassword],
    volumes: ['database:/var/lib/postgresql/data'],
    healthcheck: {
      test: [
        'CMD',
        'pg_isready',
        '--host=127.0.0.1',
        `--port=${composeDatabasePort}`,
        `--username=${controlPlaneNames.databaseUser}`,
        `--dbname=${controlPlaneNames.databaseName}`,
      ],
      interval: '5s',
      timeout: '5s',
      retries: 12,
    },
  };
}

/** The store every replica opens: the database on loopback, its password from the secret file. */
export const composeStoreUrl = (): string =>
  `postgres://${controlPlaneNames.databaseUser}@127.0.0.1:${composeDatabasePort}/${controlPlaneNames.databaseName}`;

/** Every replica's address, which every replica announces (tickets and nodes carry them all). */
export const replicaAddresses = (plane: ControlPlane): string[] =>
  numbered(plane.replicas).map((n) => `${plane.address}:${replicaPort(plane, n)}`);

function controllerService(plane: ControlPlane, useCase: UseCase, n: number): Service {
  const statusPort = controlPlaneNames.statusPort + n - 1;
  return {
    image: useCase.container?.image ?? compileDefaults.containerImage,
    container_name: containerName(useCase, serviceNames.controller(n)),
    network_mode: 'host',
    restart: 'unless-stopped',
    stop_grace_period: stopGracePeriod,
    command: [
      'controller',
      'start',
      '--listen',
      `0.0.0.0:${replicaPort(plane, n)}`,
      ...replicaAddresses(plane).flatMap((address) => ['--public-address', address]),
      '--store',
      composeStoreUrl(),
      '--store-password-file',
      secretPath(composeSecrets.databasePassword),
      '--sealing-key-file',
      secretPath(composeSecrets.sealingKey),
      '--no-relay',
      '--status-listen',
      `127.0.0.1:${statusPort}`,
    ],
    secrets: [composeSecrets.databasePassword, composeSecrets.sealingKey],
    depends_on: { [serviceNames.database]: { condition: 'service_healthy' } },
    healthcheck: healthcheck(statusPort),
  };
}

function relayService(plane: ControlPlane, useCase: UseCase, n: number): Service {
  const port = relayPortOf(plane, n);
  const statusPort = controlPlaneNames.relayStatusPort + n - 1;
  return {
    image: useCase.container?.image ?? compileDefaults.containerImage,
    container_name: containerName(useCase, serviceNames.relay(n)),
    network_mode: 'host',
    restart: 'unless-stopped',
    stop_grace_period: stopGracePeriod,
    profiles: [relaysProfile],
    command: [
      'relay',
      'start',
      '--listen',
      `0.0.0.0:${port}`,
      '--public-address',
      `${plane.address}:${port}`,
      '--status-listen',
      `127.0.0.1:${statusPort}`,
    ],
    // Needed once: an enrolled relay starts from its identity, and the variable may then be unset.
    environment: { ENROLLMENT_TICKET: `\${${relayTicketVariable}:-}` },
    volumes: [`relay-${n}-state:${compileDefaults.stateDirectory}`, `relay-${n}-keys:${relayKeysDirectory}`],
    depends_on: { [serviceNames.controller(1)]: { condition: 'service_healthy' } },
    healthcheck: healthcheck(statusPort),
  };
}

/** Healthy while the status server answers GET /healthz with 200 (the image has no curl). */
function healthcheck(statusPort: number): Record<string, unknown> {
  return {
    test: ['CMD', ...statusAnswers(statusPort)],
    interval: '10s',
    timeout: '5s',
    retries: 3,
    start_period: '30s',
  };
}

/** What the guide's compose section names. */
export function composeGuideFacts(plane: ControlPlane, useCase: UseCase): Record<string, unknown> {
  return {
    firstController: containerName(useCase, serviceNames.controller(1)),
    firstAddress: `${plane.address}:${plane.port}`,
    relaysProfile,
    relayTicketVariable,
    databaseImage,
    controllerPorts: numbered(plane.replicas).map((n) => replicaPort(plane, n)),
    relayPorts: numbered(plane.relays).map((n) => relayPortOf(plane, n)),
    statusPorts: numbered(plane.replicas).map((n) => controlPlaneNames.statusPort + n - 1),
  };
}

/**
 * The administrator's commands around the control plane's Kubernetes files, as words for the guide's
 * quoting helpers and as shell lines for the files' headers: the four Secrets the files name but do not
 * hold, applying each file, and what to watch. Secret values never appear: the database password and
 * the ticket come from files, the sealing keys from openssl. Pure.
 */
import { shellQuote } from '../quote.ts';
import { controllerAddress } from './k8s-controllers.ts';
import { planeFiles, planeObjects, planeSecrets } from './k8s-names.ts';
import { controlPlaneNames, numbered, type ControlPlane } from './model.ts';

/** What the administrator replaces in the database URL: where PostgreSQL is. */
export const databaseHostPlaceholder = 'DB_HOST';

/** The file the relay ticket is written to. */
export const relayTicketFile = 'relay.ticket';

/** The database URL the Secret holds: no password (the controller refuses one there), TLS verified. */
export const databaseUrlExample = (): string =>
  `postgres://${controlPlaneNames.databaseUser}@${databaseHostPlaceholder}:5432/${controlPlaneNames.databaseName}` +
  '?sslmode=verify-full';

type Words = readonly (string | number)[];

const createSecret = (name: string, ...sources: string[]): Words => [
  'kubectl',
  'create',
  'secret',
  'generic',
  name,
  ...sources,
];

export interface PlaneCommandWords {
  readonly databaseSecret: Words;
  /** `generate > controllerSealFile`, then `store`. */
  readonly controllerSeal: { readonly generate: Words; readonly file: string; readonly store: Words };
  readonly applyControllers: Words;
  readonly controllersRollout: Words;
  readonly controllerService: Words;
  /** Piped to grep 'admin code'. */
  readonly controllerLogs: Words;
  /** Followed by the admin code. */
  readonly enroll: Words;
  /** `> relayTicketFile`. */
  readonly relayTicket: Words;
  readonly relayTicketSecret: Words;
  /** `generate | store`. */
  readonly relaySeal: { readonly generate: Words; readonly store: Words };
  readonly applyRelays: Words;
  readonly relaysRollout: Words;
  readonly relayServices: Words;
  readonly pods: Words;
}

export function planeCommandWords(plane: ControlPlane): PlaneCommandWords {
  const { database, controllerSeal, relayTicket, relaySeal } = planeSecrets;
  return {
    databaseSecret: createSecret(
      database.name,
      `--from-literal=${database.url}=${databaseUrlExample()}`,
      `--from-file=${database.password}=${controlPlaneNames.databasePasswordFile}`,
    ),
    controllerSeal: {
      generate: ['openssl', 'rand', '-base64', 48],
      file: controlPlaneNames.sealingKeyFile,
      store: createSecret(controllerSeal.name, `--from-file=${controllerSeal.key}=${controlPlaneNames.sealingKeyFile}`),
    },
    applyControllers: ['kubectl', 'apply', '-f', planeFiles.controllers],
    controllersRollout: ['kubectl', 'rollout', 'status', `deployment/${planeObjects.controller}`],
    controllerService: ['kubectl', 'get', 'service', planeObjects.controller],
    controllerLogs: ['kubectl', 'logs', `deployment/${planeObjects.controller}`],
    enroll: ['portal', 'enroll', '--controller', controllerAddress(plane), '--code'],
    relayTicket: ['portal', 'project', 'ticket', '--relay-node', '--usage-count', plane.relays],
    relayTicketSecret: createSecret(relayTicket.name, `--from-file=${relayTicket.key}=${relayTicketFile}`),
    relaySeal: {
      generate: ['openssl', 'rand', '-base64', 32],
      store: createSecret(relaySeal.name, `--from-file=${relaySeal.key}=/dev/stdin`),
    },
    applyRelays: ['kubectl', 'apply', '-f', planeFiles.relays],
    relaysRollout: ['kubectl', 'rollout', 'status', `statefulset/${planeObjects.relay}`],
    relayServices: ['kubectl', 'get', 'services', ...numbered(plane.relays).map(planeObjects.relayPod)],
    pods: ['kubectl', 'get', 'pods', '-l', 'app.kubernetes.io/part-of=portal'],
  };
}

/** Words as one shell line. */
export const shellLine = (words: Words): string => words.map(shellQuote).join(' ');

/**
 * The control plane as Kubernetes manifests (control-plane/k8s/), each a multi-document file of typed
 * objects rendered as the nodes' are: `k8s/controllers.yaml` (the replicas, their load balancer and
 * budget) and `k8s/relays.yaml` (the relays, one load balancer each, their budget). Each file's header
 * names the Secrets to create first. The guide's Kubernetes section renders the facts below, so that
 * it and the files name the same objects. Pure.
 */
import { isIP } from 'node:net';
import { compileDefaults } from '../defaults.ts';
import { renderDocuments } from '../k8s/render.ts';
import type { UseCase } from '../model.ts';
import { oneLine } from '../quote.ts';
import { databaseHostPlaceholder, planeCommandWords, relayTicketFile, shellLine } from './k8s-commands.ts';
import { controllerAddress, controllerDocuments } from './k8s-controllers.ts';
import { planeFiles, planeObjects, planePaths, planeSecrets } from './k8s-names.ts';
import { relayAddress, relayDocuments } from './k8s-relays.ts';
import { numbered, type ControlPlane } from './model.ts';

/** The key of the database Secret that holds a private authority's certificate, when the database needs one. */
const databaseCaKey = 'ca.crt';

const imageOf = (useCase: UseCase): string => useCase.container?.image ?? compileDefaults.containerImage;

export function controlPlaneKubernetes(plane: ControlPlane, useCase: UseCase): { path: string; content: string }[] {
  const image = imageOf(useCase);
  return [
    {
      path: planeFiles.controllers,
      content: renderDocuments(controllersHeader(plane, useCase), controllerDocuments(plane, image)),
    },
    { path: planeFiles.relays, content: renderDocuments(relaysHeader(plane, useCase), relayDocuments(plane, image)) },
  ];
}

const of = (useCase: UseCase): string => `${oneLine(useCase.title)} (${useCase.usecase})`;

function controllersHeader(plane: ControlPlane, useCase: UseCase): string[] {
  const commands = planeCommandWords(plane);
  return [
    `The ${plane.replicas} controller replicas of the Portal control plane of ${of(useCase)}, for kubectl apply -f.`,
    'First create their two Secrets, in the namespace you apply this file to (DB_HOST: your PostgreSQL;',
    `${commands.controllerSeal.file}: keep a copy apart from the database, without it the project is lost):`,
    `  ${shellLine(commands.databaseSecret)}`,
    `  ${shellLine(commands.controllerSeal.generate)} > ${commands.controllerSeal.file}`,
    `  ${shellLine(commands.controllerSeal.store)}`,
    `Then point ${plane.address} at the load balancer of the Service ${planeObjects.controller}, and enroll:`,
    `  ${shellLine(commands.controllerLogs)} | grep 'admin code'`,
    `  ${shellLine(commands.enroll)} <the admin code>`,
  ];
}

function relaysHeader(plane: ControlPlane, useCase: UseCase): string[] {
  const commands = planeCommandWords(plane);
  return [
    `The ${plane.relays} relays of the Portal control plane of ${of(useCase)}, for kubectl apply -f`,
    `(Kubernetes 1.28 or later), once an administrator is enrolled with the controllers. First create their`,
    'two Secrets, in the namespace of the controllers:',
    `  ${shellLine(commands.relayTicket)} > ${relayTicketFile}`,
    `  ${shellLine(commands.relayTicketSecret)}`,
    `  ${shellLine(commands.relaySeal.generate)} | ${shellLine(commands.relaySeal.store)}`,
    `The ticket is needed until every relay is enrolled; then you may delete ${planeSecrets.relayTicket.name}.`,
    `Keep ${planeSecrets.relaySeal.name}: without it the identities on the claims cannot be opened.`,
    `Point relay-<n>.${plane.address} at the load balancer of the Service ${planeObjects.relayPod('<n>')}.`,
  ];
}

/** What the guide's Kubernetes section (templates/control-plane-kubernetes.md.hbs) names. */
export function kubernetesGuideFacts(plane: ControlPlane, useCase: UseCase): Record<string, unknown> {
  return {
    image: imageOf(useCase),
    files: planeFiles,
    objects: { controller: planeObjects.controller, relay: planeObjects.relay },
    secrets: planeSecrets,
    commands: planeCommandWords(plane),
    relayTicketFile,
    databaseHost: databaseHostPlaceholder,
    databaseDirectory: planePaths.database,
    /** A private authority's certificate, as one more key of the database Secret. */
    databaseCa: { key: databaseCaKey, urlSuffix: `&sslrootcert=${planePaths.database}/${databaseCaKey}` },
    controllerAddress: controllerAddress(plane),
    relays: numbered(plane.relays).map((n) => ({
      n,
      service: planeObjects.relayPod(n),
      host: `relay-${n}.${plane.address}`,
      address: relayAddress(plane, n),
    })),
    /** relay-<n>.<address> is no name when the address is an IP address. */
    addressIsIp: isIP(plane.address) !== 0,
  };
}

/**
 * The self-hosted control plane a manifest asks for (control-plane): controller replicas on one
 * PostgreSQL database and relay nodes, with every default filled in. Pure: the generators of
 * control-plane/ (compose, Kubernetes, stack, guide) work from this alone.
 */
import type { ControlPlaneManifest } from '../../shared/types/manifest.ts';

export interface ControlPlane {
  /** The name nodes, relays and administrators dial (compose machine; Kubernetes load balancers). */
  readonly address: string;
  readonly replicas: number;
  readonly relays: number;
  /** The controllers' port; on one machine replica n listens on port + n − 1. */
  readonly port: number;
  /** The relays' port; on one machine relay n listens on relayPort + n − 1. */
  readonly relayPort: number;
}

export const controlPlaneDefaults = { replicas: 3, relays: 2, port: 4000, relayPort: 4100 } as const;

/** Fixed names every target shares, so that the guide and each artifact agree. */
export const controlPlaneNames = {
  /** Output folder under the use case's. */
  folder: 'control-plane',
  /** PostgreSQL role and database of the controllers. */
  databaseUser: 'portal',
  databaseName: 'portal',
  /** Files the administrator makes beside the compose file (secrets, never in it). */
  databasePasswordFile: 'database.password',
  sealingKeyFile: 'controller-seal.key',
  /** Where a replica serves /healthz and /metrics (one machine: status port + n − 1, on loopback). */
  statusPort: 9460,
  /** Where a relay serves /healthz and /metrics (one machine: relay status port + n − 1). */
  relayStatusPort: 9470,
} as const;

export function resolveControlPlane(manifest: ControlPlaneManifest): ControlPlane {
  return {
    address: manifest.address,
    replicas: manifest.replicas ?? controlPlaneDefaults.replicas,
    relays: manifest.relays ?? controlPlaneDefaults.relays,
    port: manifest.port ?? controlPlaneDefaults.port,
    relayPort: manifest['relay-port'] ?? controlPlaneDefaults.relayPort,
  };
}

/** 1 … count. */
export const numbered = (count: number): number[] => Array.from({ length: count }, (_, index) => index + 1);

/** On one machine (compose): replica n's port. */
export const replicaPort = (plane: ControlPlane, replica: number): number => plane.port + replica - 1;

/** On one machine (compose): relay n's port. */
export const relayPortOf = (plane: ControlPlane, relay: number): number => plane.relayPort + relay - 1;

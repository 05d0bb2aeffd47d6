/**
 * Inputs for the Kubernetes target (one portal, and three on one pair of nodes) and its two files read
 * back as kubectl reads them, with the objects the tests look into.
 */
import assert from 'node:assert/strict';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { IService } from 'kubernetes-models/v1/Service';
import { kubernetesArtifacts, type KubernetesInput } from '../../src/compile/k8s/kubernetes.ts';
import { parseHostPort } from '../../src/shared/address.ts';
import type { NodeConfig } from '../../src/shared/types/node-config.ts';
import { parseKubernetesFile, type KubernetesObjectLike } from './k8s-api-check.ts';

/** One portal, as the PostgreSQL use case compiles it. */
export const single: KubernetesInput = {
  usecase: 'postgres',
  title: 'PostgreSQL database',
  image: 'portal-node',
  logLevel: 'info',
  outlet: {
    config: {
      'http-server-port': 23345,
      relay: 'postgres',
      'tcp-outlet': { allow: 'postgres-inlet', to: '$POSTGRES_ENDPOINT:5432' },
    },
    endpoints: [
      {
        placeholder: 'POSTGRES_ENDPOINT',
        label: 'PostgreSQL database endpoint (host only)',
        example: 'portal-demo.c8xyzabc1234.us-east-1.rds.amazonaws.com',
      },
    ],
  },
  inlet: {
    config: {
      'http-server-port': 23345,
      'tcp-inlet': { allow: 'postgres-outlet', direct: '0.0.0.0:4200', from: '0.0.0.0:15432', via: 'postgres' },
    },
    ports: [{ name: 'postgres', port: 15432 }],
  },
};

/** Three portals on one pair of nodes: one below 1024, one whose name Kubernetes does not take as a port name. */
export const multi: KubernetesInput = {
  usecase: 'analytics',
  title: 'Warehouse, model runtime and order events',
  image: 'registry.example.net/portal-node:0.1.0',
  logLevel: 'debug',
  outlet: {
    config: {
      'http-server-port': 23346,
      'tcp-outlets': {
        warehouse: { to: '$WAREHOUSE_ENDPOINT', allow: 'analytics-inlet' },
        model: { to: '$MODEL_ENDPOINT:443', allow: 'analytics-inlet', tls: true },
        'order-events-receiver': { to: 'receiver.orders.svc:7777', allow: 'analytics-inlet' },
      },
    },
    endpoints: [
      { placeholder: 'WAREHOUSE_ENDPOINT', label: 'Warehouse endpoint (host:port)', example: 'wh.example.net:5439' },
      { placeholder: 'MODEL_ENDPOINT', label: 'Model runtime endpoint', example: 'runtime.example.net' },
    ],
  },
  inlet: {
    config: {
      'http-server-port': 23346,
      'tcp-inlets': {
        warehouse: { from: '0.0.0.0:15439', allow: 'analytics-outlet', direct: false },
        model: { from: '0.0.0.0:443', allow: 'analytics-outlet', tls: true, direct: false },
        'order-events-receiver': { from: '0.0.0.0:17777', allow: 'analytics-outlet', direct: false },
      },
    },
    ports: [
      { name: 'warehouse', port: 15439 },
      { name: 'model', port: 443 },
      { name: 'order-events-receiver', port: 17777 },
    ],
  },
};

export interface NodeFile {
  readonly text: string;
  readonly objects: KubernetesObjectLike[];
  readonly deployment: IDeployment;
  readonly configMaps: IConfigMap[];
  readonly claims: IPersistentVolumeClaim[];
  readonly services: IService[];
}

export function nodeFiles(input: KubernetesInput): { outlet: NodeFile; inlet: NodeFile } {
  const artifacts = kubernetesArtifacts(input);
  assert.deepEqual(
    artifacts.map((artifact) => artifact.path),
    ['k8s/outlet.yaml', 'k8s/inlet.yaml'],
  );
  return { outlet: nodeFile(artifacts[0]?.content ?? ''), inlet: nodeFile(artifacts[1]?.content ?? '') };
}

/** One node's file (k8s/outlet.yaml or k8s/inlet.yaml), read back as kubectl reads it. */
export function nodeFile(text: string): NodeFile {
  const objects = parseKubernetesFile(text);
  const ofKind = <T>(kind: string) => objects.filter((object) => object.kind === kind) as unknown as T[];
  const [deployment, ...more] = ofKind<IDeployment>('Deployment');
  assert.ok(deployment && more.length === 0, 'one Deployment per file');
  return {
    text,
    objects,
    deployment,
    configMaps: ofKind('ConfigMap'),
    claims: ofKind('PersistentVolumeClaim'),
    services: ofKind('Service'),
  };
}

export const podSpec = (file: NodeFile) => {
  const spec = file.deployment.spec?.template.spec;
  assert.ok(spec, 'the Deployment has a pod template');
  return spec;
};

export const nodeContainer = (file: NodeFile): IContainer => {
  const [container, ...more] = podSpec(file).containers;
  assert.ok(container && more.length === 0, 'one container runs the node');
  return container;
};

export const environment = (container: IContainer) =>
  new Map((container.env ?? []).map((variable) => [variable.name, variable]));

/** The ports a node configuration's inlets listen on. */
export function listenPorts(config: NodeConfig): number[] {
  const inlets = [config['tcp-inlet'], ...Object.values(config['tcp-inlets'] ?? {})].filter((inlet) => !!inlet);
  return inlets.map((inlet) => {
    const parsed = parseHostPort(inlet.from);
    assert.ok(parsed.ok);
    return parsed.address.port;
  });
}

/** What the node does with its configuration's $NAME placeholders: each replaced by its environment variable. */
export function substituted(config: NodeConfig, variables: Readonly<Record<string, string>>): NodeConfig {
  const text = JSON.stringify(config).replace(/\$([A-Z_][A-Z0-9_]*)/g, (whole, name: string) => {
    assert.ok(name in variables, `the configuration's ${whole} has a value in the endpoints ConfigMap`);
    return variables[name] as string;
  });
  return JSON.parse(text) as NodeConfig;
}

export const podSecurity = (file: NodeFile) => podSpec(file).securityContext;

/**
 * The two ConfigMaps of a node. The configuration is the compiled node configuration, applied as it is;
 * the endpoints are the values of the outlet's placeholders (`$POSTGRES_ENDPOINT` in its `to`), which the
 * node substitutes from its environment; the administrator replaces the manifest's examples in the file
 * before applying it. Neither holds a secret: the ticket and the sealing key are in Secrets the
 * administrator creates. Pure.
 */
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { toStableJson } from '../../shared/serialize.ts';
import type { NodeConfig } from '../../shared/types/node-config.ts';
import { oneLine } from '../quote.ts';
import type { KubernetesDocument } from './document.ts';
import { nodeLabels, objectNames, type NodeRole } from './names.ts';

export interface Endpoint {
  /** The variable's name, without the `$`: POSTGRES_ENDPOINT. */
  readonly placeholder: string;
  /** What the value is, for the administrator. */
  readonly label: string;
  /** The manifest's example value, the ConfigMap's until the administrator replaces it. */
  readonly example: string;
}

/** The key the configuration has in its ConfigMap, and the file name it has in the pod. */
export const configurationFile = (role: NodeRole): string => `${role}.json`;

export function configurationMap(usecase: string, role: NodeRole, config: NodeConfig): KubernetesDocument {
  // A ConfigMap is readable by whoever may read the namespace's configuration: never a ticket in one.
  if (config.ticket !== undefined)
    throw new Error(`the ${role} configuration carries a ticket; it belongs in a Secret`);
  const object: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: objectNames(usecase, role).configuration, labels: nodeLabels(usecase, role) },
    data: { [configurationFile(role)]: toStableJson(config) },
  };
  return { object, comment: [`The ${role} node's configuration, as compiled (${configurationFile(role)}).`] };
}

/** An environment variable's name, as a shell and the node's substitution read one. */
const variableName = /^[A-Z_][A-Z0-9_]*$/;

export function endpointsMap(usecase: string, endpoints: readonly Endpoint[]): KubernetesDocument {
  const names = objectNames(usecase, 'outlet');
  for (const { placeholder } of endpoints)
    if (!variableName.test(placeholder)) throw new Error(`endpoint placeholder ${placeholder} is not a variable name`);
  const object: IConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: names.endpoints, labels: nodeLabels(usecase, 'outlet') },
    data: Object.fromEntries(endpoints.map((endpoint) => [endpoint.placeholder, endpoint.example])),
  };
  const dataComments = Object.fromEntries(
    endpoints.map((endpoint) => [
      endpoint.placeholder,
      [`${oneLine(endpoint.label)}: replace the example with yours.`],
    ]),
  );
  return {
    object,
    comment: [
      'Where the outlet connects: each value replaces its $NAME in the configuration. Replace the examples',
      'here before kubectl apply. The node reads them when it starts: after a change, apply this file again',
      `and run kubectl rollout restart deployment/${names.node}`,
    ],
    dataComments,
  };
}

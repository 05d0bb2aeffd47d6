import { defaultNetworkDomain } from '../shared/product.ts';

/** Values every use case shares unless its manifest says otherwise. */
export const compileDefaults = {
  /** The node container image built from the repository's Dockerfile. */
  containerImage: 'portal-node',
  /** The controller's network domain: TLS inlets are <label>.<project_id>.<network_domain>. */
  networkDomain: defaultNetworkDomain,
  /** Where stacks keep the node's state (the mounted file system). */
  stateDirectory: '/var/lib/portal',
  /**
   * Where a stack's machine keeps the node's sealing key: /run is memory (tmpfs), on the machine
   * itself, never on the file system whose identity it seals; it is fetched from the stack's secret
   * at every start of the node.
   */
  stackSealingKeyFile: '/run/portal/seal.key',
  /** The compose inlet's sealing key, on a volume of its own beside the state volume. */
  containerKeysDirectory: '/var/lib/portal-keys',
  containerSealingKeyFile: '/var/lib/portal-keys/node-seal.key',
} as const;

/** Address stack inlets listen on: every interface of the machine. */
export const stackListenAddress = '0.0.0.0';

import { defaultNetworkDomain } from '../shared/product.ts';

/** Values every use case shares unless its manifest says otherwise. */
export const compileDefaults = {
  /** The node container image built from the repository's Dockerfile. */
  containerImage: 'portal-node',
  /** Where the release's install.sh is served. */
  installUrl: 'https://portal.example.net/install.sh',
  /** The controller's network domain: TLS inlets are <label>.<project_id>.<network_domain>. */
  networkDomain: defaultNetworkDomain,
  /** Where stacks keep the node's state (the mounted file system). */
  stateDirectory: '/var/lib/portal',
} as const;

/** Address stack inlets listen on: every interface of the machine. */
export const stackListenAddress = '0.0.0.0';

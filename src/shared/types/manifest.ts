/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */

export type Ec2InstanceType = string;
/**
 * How the administrator checks the portal from the inlet side.
 */
export type VerificationManifest = WebhookVerification | PsqlVerification | InvokeModelVerification;

/**
 * A Portal use case: one outlet beside a private service, one inlet that exposes it, and how both are deployed.
 */
export interface UseCaseManifest {
  /**
   * Short name: the output folder, the stack names <usecase>-outlet / <usecase>-inlet and the container name <usecase>-inlet.
   */
  usecase: string;
  /**
   * Human title of the use case, used in guides, script comments and stack descriptions (quoted for each).
   */
  title: string;
  /**
   * Port of each node's local HTTP status server (http-server-port).
   */
  'status-port': number;
  /**
   * The two enrollment tickets the administrator issues.
   */
  tickets: {
    outlet: TicketManifest;
    inlet: TicketManifest;
  };
  outlet: OutletManifest;
  inlet: InletManifest;
  container?: ContainerManifest;
  verification: VerificationManifest;
}
/**
 * Flags of one `portal project ticket` call.
 */
export interface TicketManifest {
  /**
   * Lifetime of the ticket (--expires-in).
   */
  'expires-in': string;
  /**
   * Number of enrollments the ticket allows (--usage-count).
   */
  'usage-count': number;
  /**
   * Attribute given to the enrolled identity (--attribute); peers match it through allow.
   */
  attribute: string;
  /**
   * Relay the enrolled node may register (--relay). Outlet tickets only.
   */
  relay?: string;
  /**
   * Let the enrolled inlet obtain a TLS server certificate (--tls).
   */
  tls?: boolean;
}
export interface OutletManifest {
  /**
   * Relay the outlet registers; equals the outlet ticket's --relay and the inlet's via.
   */
  relay: string;
  /**
   * Target address host:port; may use the endpoint placeholder as $NAME.
   */
  to: string;
  /**
   * Attribute an inlet must carry: the inlet ticket's attribute.
   */
  allow: string;
  /**
   * The outlet connects to its target over TLS.
   */
  tls: boolean;
  endpoint?: EndpointManifest;
  'instance-type': InstanceTypeManifest;
}
/**
 * The private target's address, known only when the outlet stack is launched.
 */
export interface EndpointManifest {
  /**
   * Placeholder in tcp-outlet.to that the stack replaces at boot.
   */
  placeholder: 'REDSHIFT_ENDPOINT' | 'POSTGRES_ENDPOINT' | 'BEDROCK_RUNTIME_ENDPOINT';
  /**
   * parameter: the administrator gives it as a stack parameter; vpc-endpoint: the stack creates a private endpoint for the service and uses its name.
   */
  source: 'parameter' | 'vpc-endpoint';
  /**
   * Logical name of the stack parameter (source parameter).
   */
  parameter?: string;
  /**
   * Service name of the private endpoint (source vpc-endpoint), such as bedrock-runtime.
   */
  service?: string;
  /**
   * Port the endpoint value carries, when tcp-outlet.to is the bare placeholder.
   */
  port?: number;
  /**
   * What the endpoint is, for parameter descriptions and guides.
   */
  label: string;
  /**
   * An example value used in the guide.
   */
  example: string;
}
export interface InstanceTypeManifest {
  /**
   * Default EC2 instance type of the stack.
   */
  default: string;
  /**
   * Suggested alternatives, named in the parameter description and the guide.
   */
  alternatives?: Ec2InstanceType[];
  /**
   * Why the default was chosen, for the guide and the parameter description.
   */
  note?: string;
}
export interface InletManifest {
  /**
   * Local port the inlet listens on.
   */
  port: number;
  /**
   * Relay through which the inlet reaches the outlet.
   */
  via: string;
  /**
   * Attribute the outlet must carry: the outlet ticket's attribute.
   */
  allow: string;
  /**
   * The inlet serves TLS to its clients.
   */
  tls: boolean;
  'instance-type': InstanceTypeManifest;
}
/**
 * The container variant of the inlet (a compose file).
 */
export interface ContainerManifest {
  /**
   * Node container image.
   */
  image?: string;
  /**
   * Listen address of the inlet inside the container.
   */
  listen: '127.0.0.1' | '0.0.0.0';
  'network-mode': 'host' | 'bridge';
  /**
   * Published ports host:container (bridge mode).
   */
  publish?: string[];
  /**
   * NODE_LOG_LEVEL of the node.
   */
  'log-level': 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /**
   * How the node service gives its configuration: flags: --configuration; node-config: --node-config. Either way the ticket travels in the ENROLLMENT_TICKET environment variable, never on the command line.
   */
  'ticket-passing': 'flags' | 'node-config';
  /**
   * Whether the node service declares NODE_DEVELOPER (default false).
   */
  'developer-variable': boolean;
  'psql-client'?: PsqlClientManifest;
}
/**
 * A PostgreSQL client container next to the node.
 */
export interface PsqlClientManifest {
  image: string;
}
export interface WebhookVerification {
  kind: 'webhook';
  /**
   * Path the receiver accepts POSTs on.
   */
  path: string;
}
export interface PsqlVerification {
  kind: 'psql';
  /**
   * Name of the scratch table the verification creates and drops.
   */
  table: string;
}
export interface InvokeModelVerification {
  kind: 'invoke-model';
  /**
   * Model the guide invokes.
   */
  'model-id': string;
  /**
   * Left-most label of the inlet's TLS name <label>.<project_id>.<network_domain>.
   */
  label: string;
  /**
   * Example region for the guide's AWS_REGION.
   */
  region: string;
}

/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */

/**
 * Target address host:port; the host may be an endpoint placeholder written $NAME, whose value the deployment gives (a stack parameter, a private endpoint, or the environment variable NAME).
 */
export type Target = string;
export type Ec2InstanceType = string;
/**
 * Name of the portal: its key in the node configurations, its relay unless one is given, and part of its stack names.
 */
export type PortalName = string;
/**
 * How the administrator checks the portal through the inlet. @default {kind: tcp}
 */
export type VerificationManifest =
  | TcpVerification
  | HttpVerification
  | CommandVerification
  | WebhookVerification
  | PsqlVerification
  | InvokeModelVerification;
/**
 * Left-most label of the TLS inlet's name <label>.<project_id>.<network_domain>, which clients connect to. @default the portal's name
 */
export type DnsLabel = string;
export type Image = string;

/**
 * A Portal use case: an outlet node beside one or more private TCP services, an inlet node that exposes them as local ports, and how both are deployed. One portal is written with outlet, inlet and verification; several with portals, which then compile onto the same pair of nodes.
 */
export interface UseCaseManifest {
  /**
   * Short name: the output folder, the stack names <usecase>-outlet / <usecase>-inlet, the container names, and the root of every name not given: ticket attributes <usecase>-outlet / <usecase>-inlet, and the relay of a single portal.
   */
  usecase: string;
  /**
   * Human title of the use case, used in guides, script comments and stack descriptions (quoted for each).
   */
  title: string;
  /**
   * Port of each node's local HTTP status server (http-server-port). @default 23345
   */
  'status-port'?: number;
  /**
   * The two enrollment tickets the administrator issues; every flag has a default.
   */
  tickets?: {
    outlet?: TicketManifest;
    inlet?: TicketManifest;
  };
  outlet?: OutletManifest;
  inlet?: InletManifest;
  /**
   * Several portals on one pair of nodes, instead of the portal that outlet, inlet and verification describe; outlet and inlet then only choose the nodes' instance types.
   *
   * @minItems 1
   * @maxItems 32
   */
  portals?: [PortalManifest, ...PortalManifest[]];
  container?: ContainerManifest;
  verification?: VerificationManifest;
  'control-plane'?: ControlPlaneManifest;
}
/**
 * Flags of one `portal project ticket` call.
 */
export interface TicketManifest {
  /**
   * Lifetime of the ticket (--expires-in). @default "10h"
   */
  'expires-in'?: string;
  /**
   * Number of enrollments the ticket allows (--usage-count). @default 1
   */
  'usage-count'?: number;
  /**
   * Attribute given to the enrolled identity (--attribute); peers match it through allow. @default "<usecase>-outlet" or "<usecase>-inlet"
   */
  attribute?: string;
  /**
   * More attributes for the enrolled identity, after attribute (one --attribute each): a name, or KEY=VALUE such as team=ops, each key once.
   *
   * @maxItems 15
   */
  attributes?:
    | []
    | [string]
    | [string, string]
    | [string, string, string]
    | [string, string, string, string]
    | [string, string, string, string, string]
    | [string, string, string, string, string, string]
    | [string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [string, string, string, string, string, string, string, string, string, string, string, string, string, string]
    | [
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string,
        string
      ];
  /**
   * Relay the enrolled node may register (--relay). Outlet tickets of a single portal only: it must be the outlet's relay. A manifest with portals grants every portal's relay.
   */
  relay?: string;
  /**
   * Let the enrolled inlet obtain a TLS server certificate (--tls). @default true for the inlet ticket when an inlet serves TLS
   */
  tls?: boolean;
}
/**
 * The outlet node. For a single portal also its outlet (to is required then); with portals only instance-type.
 */
export interface OutletManifest {
  /**
   * Relay the outlet registers; equals the outlet ticket's --relay and the inlet's via. @default the use case's name
   */
  relay?: string;
  to?: Target;
  /**
   * Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute
   */
  allow?: string;
  /**
   * The outlet connects to its target over TLS and checks its certificate. @default false
   */
  tls?: boolean;
  endpoint?: EndpointManifest;
  'instance-type'?: InstanceTypeManifest;
  /**
   * Outlet nodes that serve the portals together, as one pool (docs/replicas.md): inlets spread connections over them and a lost or drained one costs no new connection. Each is a node of its own, enrolled with the same outlet ticket, whose usage count defaults to this number. Allowed with portals too. @default 1
   */
  replicas?: number;
}
/**
 * The value of the target's placeholder, known only when the outlet is deployed. Every key has a default: a stack parameter named after the placeholder.
 */
export interface EndpointManifest {
  /**
   * The placeholder in the target, without its $. @default the one the target uses
   */
  placeholder?: string;
  /**
   * parameter: the administrator gives the value as a stack parameter (or the environment variable of the same name); vpc-endpoint: the outlet stack creates an interface endpoint (AWS PrivateLink) for the service and uses its private DNS name. @default parameter
   */
  source?: 'parameter' | 'vpc-endpoint';
  /**
   * Logical name of the stack parameter (source parameter). @default the placeholder in CamelCase: REDIS_ENDPOINT gives RedisEndpoint
   */
  parameter?: string;
  /**
   * The PrivateLink service (source vpc-endpoint): an AWS service short name such as bedrock-runtime (in the stack's region), com.amazonaws.<region>.<service>, or an endpoint service com.amazonaws.vpce.<region>.vpce-svc-<17 hex digits>.
   */
  service?: string;
  /**
   * Port the endpoint value carries, when the target is the bare placeholder.
   */
  port?: number;
  /**
   * What the endpoint is, for parameter descriptions and guides. @default "<title> endpoint", or "<portal> endpoint" with portals
   */
  label?: string;
  /**
   * An example value used in the guide and the parameter description.
   */
  example?: string;
}
/**
 * EC2 instance type of a node's stack. @default m6a.large: 2 vCPUs and up to 12.5 Gbps of network, with no CPU credits to run out (as t3 types have), the spec's default for the warehouse and model-runtime stacks
 */
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
/**
 * The inlet node. For a single portal also its inlet (port is required then); with portals only instance-type.
 */
export interface InletManifest {
  /**
   * Local port the inlet listens on.
   */
  port?: number;
  /**
   * Relay through which the inlet reaches the outlet. @default the outlet's relay
   */
  via?: string;
  /**
   * Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute
   */
  allow?: string;
  /**
   * The inlet serves TLS to its clients, with a certificate the project signs for <label>.<project_id>.<network_domain>. @default false
   */
  tls?: boolean;
  'instance-type'?: InstanceTypeManifest;
}
/**
 * One portal of several: a target beside the outlet node, a port on the inlet node.
 */
export interface PortalManifest {
  name: PortalName;
  outlet: PortalOutletManifest;
  inlet: PortalInletManifest;
  verification?: VerificationManifest;
}
export interface PortalOutletManifest {
  /**
   * Relay this outlet registers; the outlet ticket grants it. @default the portal's name
   */
  relay?: string;
  to: Target;
  /**
   * Who the outlet admits: an attribute the inlet ticket carries, or an expression its attributes meet. @default that attribute
   */
  allow?: string;
  /**
   * The outlet connects to this target over TLS and checks its certificate. @default false
   */
  tls?: boolean;
  endpoint?: EndpointManifest;
}
export interface PortalInletManifest {
  /**
   * Local port this inlet listens on.
   */
  port: number;
  /**
   * Relay through which this inlet reaches its outlet. @default the outlet's relay
   */
  via?: string;
  /**
   * Who the inlet admits: an attribute the outlet ticket carries, or an expression its attributes meet. @default that attribute
   */
  allow?: string;
  /**
   * This inlet serves TLS to its clients. @default false
   */
  tls?: boolean;
}
/**
 * Connect through the inlet; optionally send bytes and expect the reply to begin with a prefix.
 */
export interface TcpVerification {
  kind: 'tcp';
  /**
   * Bytes to send once connected (the text as UTF-8), such as "PING\r\n".
   */
  send?: string;
  /**
   * What the reply must begin with.
   */
  expect?: string;
  label?: DnsLabel;
}
/**
 * An HTTP request through the inlet (HTTPS with the project's CA when the inlet serves TLS).
 */
export interface HttpVerification {
  kind: 'http';
  /**
   * @default GET
   */
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /**
   * Path of the request. @default /
   */
  path?: string;
  /**
   * The HTTP status expected. @default 200
   */
  status?: number;
  label?: DnsLabel;
}
/**
 * A client program run against the inlet. Its words are given as a list; {host}, {port}, {name} (the TLS inlet's name) and {ca} (the project CA file) are filled in as separate, quoted words; {env:NAME} is the environment variable NAME where the check runs, for a password, which is never written into the generated files (a word that holds one is refused).
 */
export interface CommandVerification {
  kind: 'command';
  /**
   * The program and its arguments, such as [redis-cli, -h, "{host}", -p, "{port}", PING].
   *
   * @minItems 1
   * @maxItems 64
   */
  run: [string, ...string[]];
  /**
   * Text the command's output must contain.
   */
  expect?: string;
  label?: DnsLabel;
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
  label?: DnsLabel;
  /**
   * Example region for the guide's AWS_REGION.
   */
  region: string;
}
/**
 * The inlet as a container (inlet.compose.yaml); every key has a default.
 */
export interface ContainerManifest {
  /**
   * Node container image. @default portal-node
   */
  image?: string;
  /**
   * Listen address of the inlet inside the container. @default 127.0.0.1 on the host network, 0.0.0.0 on a bridge
   */
  listen?: '127.0.0.1' | '0.0.0.0';
  /**
   * @default host
   */
  'network-mode'?: 'host' | 'bridge';
  /**
   * Published ports host:container (bridge mode). @default every inlet port, as port:port
   */
  publish?: string[];
  /**
   * NODE_LOG_LEVEL of the node. @default info
   */
  'log-level'?: 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /**
   * How the node service gives its configuration: flags: --configuration; node-config: --node-config. Either way the ticket travels in the ENROLLMENT_TICKET environment variable, never on the command line. @default flags
   */
  'ticket-passing'?: 'flags' | 'node-config';
  /**
   * Whether the node service declares NODE_DEVELOPER (default false). @default false
   */
  'developer-variable'?: boolean;
  'psql-client'?: PsqlClientManifest;
  client?: ClientManifest;
}
/**
 * A PostgreSQL client container next to the node.
 */
export interface PsqlClientManifest {
  image: Image;
}
/**
 * A client container next to the node, named <usecase>-client, in which the guide runs the command verifications.
 */
export interface ClientManifest {
  image: Image;
}
/**
 * A self-hosted control plane to run the project on (docs/replicas.md): controller replicas on one PostgreSQL database and relay nodes, compiled under control-plane/ as a compose file for one machine, Kubernetes manifests and a CloudFormation stack. Without it, the nodes enroll with any controller (tickets.sh asks for its address).
 */
export interface ControlPlaneManifest {
  /**
   * The DNS name (or IP address) nodes, relays and administrators dial: the compose machine, or the name pointed at the Kubernetes load balancers (relay n is relay-<n>.<address> there). The stack uses its load balancer's own name.
   */
  address: string;
  /**
   * Controller replicas, each serving every project with no leader. @default 3
   */
  replicas?: number;
  /**
   * Relay nodes carrying the portals that do not go direct; replicas serve no relay of their own. @default 2
   */
  relays?: number;
  /**
   * TCP port of the controllers (on the compose machine, replica n listens on port + n - 1). @default 4000
   */
  port?: number;
  /**
   * TCP port of the relays (on the compose machine, relay n listens on relay-port + n - 1). @default 4100
   */
  'relay-port'?: number;
}

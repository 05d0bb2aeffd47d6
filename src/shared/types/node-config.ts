/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */

/**
 * Configuration of one Portal node: an outlet (relay and tcp-outlet) or an inlet (tcp-inlet). Given as JSON to the stacks and as YAML to containers.
 */
export interface NodeConfig {
  /**
   * Relay name the outlet registers; equals its ticket's --relay.
   */
  relay?: string;
  'tcp-outlet'?: TcpOutletConfig;
  'tcp-inlet'?: TcpInletConfig;
  /**
   * Port of the node's local HTTP status server on 127.0.0.1 (0 lets the system choose; portal node show finds it).
   */
  'http-server-port'?: number;
  /**
   * Enrollment ticket (container YAML only).
   */
  ticket?: string;
}
export interface TcpOutletConfig {
  /**
   * Target address host:port. May contain $REDSHIFT_ENDPOINT, $POSTGRES_ENDPOINT or $BEDROCK_RUNTIME_ENDPOINT, replaced when the stack boots.
   */
  to: string;
  /**
   * Attribute an inlet must have.
   */
  allow: string;
  /**
   * Connect to the target over TLS.
   */
  tls?: boolean;
}
export interface TcpInletConfig {
  /**
   * Local listen address address:port.
   */
  from: string;
  /**
   * Relay name through which the outlet is reached.
   */
  via: string;
  /**
   * Attribute the outlet must have.
   */
  allow: string;
  /**
   * Serve TLS to clients with the project-signed certificate.
   */
  tls?: boolean;
  /**
   * The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): every network address of this machine, on a port the system chooses; host:port: that address (0.0.0.0 for every one), for a firewall rule; false: relays only.
   */
  direct?: boolean | string;
}

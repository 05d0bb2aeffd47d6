/* Generated from the JSON Schema by scripts/generate-types.ts (npm run types). Do not edit. */

/**
 * Configuration of one Portal node: its outlets (relay and tcp-outlet, or tcp-outlets) and its inlets (tcp-inlet, or tcp-inlets), each one end of a portal. Given as JSON to the stacks and as YAML to containers.
 */
export interface NodeConfig {
  /**
   * Relay name the outlet registers; equals its ticket's --relay.
   */
  relay?: string;
  'tcp-outlet'?: TcpOutletConfig;
  /**
   * Several outlets, by portal name; instead of relay and tcp-outlet.
   */
  'tcp-outlets'?: {
    [k: string]: NamedTcpOutletConfig;
  };
  'tcp-inlet'?: TcpInletConfig;
  /**
   * Several inlets, by portal name; instead of tcp-inlet.
   */
  'tcp-inlets'?: {
    [k: string]: NamedTcpInletConfig;
  };
  /**
   * Port of the node's local HTTP status server on 127.0.0.1 (0 lets the system choose; portal node show finds it).
   */
  'http-server-port'?: number;
  /**
   * Opt-in bound: the node opens and accepts no new session while its list of revoked members is older than this (the controller unreachable for longer), such as 5m. Unset: a node that cannot hear the controller keeps carrying traffic.
   */
  'revocation-max-age'?: string;
  /**
   * Enrollment ticket (container YAML only).
   */
  ticket?: string;
}
/**
 * The node's one outlet, named after its relay. A node with several outlets uses tcp-outlets instead.
 */
export interface TcpOutletConfig {
  /**
   * Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.
   */
  to: string;
  /**
   * Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.
   */
  allow: string;
  /**
   * Connect to the target over TLS.
   */
  tls?: boolean;
}
/**
 * One outlet of several: its portal's target, allow, and the relay it registers (by default the portal's name).
 */
export interface NamedTcpOutletConfig {
  /**
   * Relay name this outlet registers; one the node's ticket grants. @default the portal's name
   */
  relay?: string;
  /**
   * Target address host:port. May contain an endpoint placeholder such as $POSTGRES_ENDPOINT (an upper-case name after $), replaced when the stack boots.
   */
  to: string;
  /**
   * Who the outlet admits: an attribute the inlet must have, or an expression over its attributes.
   */
  allow: string;
  /**
   * Connect to the target over TLS.
   */
  tls?: boolean;
}
/**
 * The node's one inlet, named after its via. A node with several inlets uses tcp-inlets instead.
 */
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
   * Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.
   */
  allow: string;
  /**
   * Serve TLS to clients with the project-signed certificate.
   */
  tls?: boolean;
  /**
   * The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.
   */
  direct?: boolean | string;
}
/**
 * One inlet of several: where it listens, which relay reaches its outlet (by default the portal's name), and the attribute the outlet must have.
 */
export interface NamedTcpInletConfig {
  /**
   * Local listen address address:port.
   */
  from: string;
  /**
   * Relay name through which the outlet is reached. @default the portal's name
   */
  via?: string;
  /**
   * Who the inlet admits: an attribute the outlet must have, or an expression over its attributes.
   */
  allow: string;
  /**
   * Serve TLS to clients with the project-signed certificate.
   */
  tls?: boolean;
  /**
   * The direct path: where this inlet accepts outlets that dial it, with the same mutual TLS and allow checks as through a relay. true (the default): loopback (127.0.0.1) on a port the system chooses, which only an outlet on this machine reaches; host:port: that address, which outlets on other machines reach (this machine's address, or 0.0.0.0 for every one; docs/ports.md); false: relays only.
   */
  direct?: boolean | string;
}

/** Words the product prints that other parts (boot scripts, alarms, tests) match on. */
export const product = {
  name: 'Portal',
  /** Logged once a node's inlet, outlet or relay is ready; the stacks' boot script prints it too. */
  setupCompletedLine: 'Portal node setup completed successfully',
  /** First line of `portal node show` for a ready node; the node-down alarm counts these. */
  nodeUpLine: 'The node is UP',
  /** CloudWatch namespace of the node status metric. */
  metricNamespace: 'Portal',
  /** Default port of the node status server. */
  statusPort: 23345,
  /**
   * Port of the inlet's direct path in compiled deployments (tcp-inlet.direct), fixed so that a
   * security group or firewall rule can name it.
   */
  directPort: 4200,
} as const;

/** The network domain of a controller that is not told another: TLS inlets are <label>.<project>.<domain>. */
export const defaultNetworkDomain = 'portal.example.net';

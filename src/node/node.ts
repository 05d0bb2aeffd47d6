/**
 * A running node: its identity (enrolled once, then reused from PORTAL_HOME), its standing connection
 * to the controller, its outlets and inlets, the status server, and credential renewal.
 *
 * Starting takes the steps in order, each in its file: the identity checked (node-identity.ts), the
 * inlets' listeners bound (node-listeners.ts), the status server up and the ticket spent (here), then
 * the parts put together (node-parts.ts) and run (node-run.ts).
 */
import { product } from '../shared/product.ts';
import { enrollWithTicket } from './enrollment.ts';
import { startClaimed, type HomeClaim } from './home-claim.ts';
import type { StoredIdentity } from './identity-store.ts';
import { createMetrics } from './metrics.ts';
import { identityToStart } from './node-identity.ts';
import { bindNodeListeners, closeListeners } from './node-listeners.ts';
import type { NodeOptions } from './node-options.ts';
import { keptConfigurationFile, writeKeptConfiguration } from './kept-configuration.ts';
import { portalsOf } from './portals.ts';
import { runEnrolled, type RunningNode } from './node-run.ts';
import type { NodeShow } from './show.ts';
import { startStatusServer } from './status-server.ts';
import { version } from './version.ts';
import { nodeDirectory, runtimeFile } from './runtime-file.ts';

export type { NodeOptions } from './node-options.ts';
export type { RunningNode } from './node-run.ts';

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  return startClaimed({ file: runtimeFile(options.home), what: 'a node', home: options.home }, (claim) =>
    startOnClaim(options, claim),
  );
}

async function startOnClaim(options: NodeOptions, claim: HomeClaim): Promise<RunningNode> {
  const { config, logger } = options;
  const directory = nodeDirectory(options.home);
  const stored = await identityToStart(directory, options);
  const portals = portalsOf(config);
  const listeners = await bindNodeListeners(portals.inlets, options.directAdvertise);
  let current: StoredIdentity | undefined = stored;
  const startedAt = Date.now();
  let show: () => NodeShow = () => ({ status: current ? 'starting' : 'enrolling', version, problems: [] });
  const metrics = createMetrics();
  const status = await startStatusServer({
    port: config['http-server-port'] ?? product.statusPort,
    show: () => show(),
    registry: metrics.registry,
  }).catch((error) => {
    closeListeners(listeners.values());
    throw error;
  });
  const closeEarly = () => {
    closeListeners(listeners.values());
    status.server.close();
  };
  let running: NodeOptions;
  try {
    running = await keepConfiguration(options);
    await claim.update({
      statusPort: status.port,
      ...(running.source?.file ? { configuration: running.source.file } : {}),
    });
    if (!current) {
      current = await enrollWithTicket(directory, options.ticket as string);
      const { nodeId, projectId, attributes } = current.record;
      logger.info(
        `enrolled as ${nodeId} in project ${projectId} with ${attributes.length === 1 ? 'attribute' : 'attributes'} ` +
          (attributes.join(', ') || '(none)'),
      );
    } else if (options.ticket) {
      logger.info(`already enrolled as ${current.record.nodeId}; the enrollment ticket is not needed and was not used`);
    }
  } catch (error) {
    closeEarly();
    throw error;
  }
  try {
    return await runEnrolled(running, current, {
      directory,
      portals,
      listeners,
      status,
      metrics,
      startedAt,
      claim,
      setShow: (next) => (show = next),
    });
  } catch (error) {
    closeEarly();
    throw error;
  }
}

/**
 * A configuration that cannot be read again (inline, or a credential) is kept in the home, on this
 * node's claim, and becomes the file its reloads read.
 */
async function keepConfiguration(options: NodeOptions): Promise<NodeOptions> {
  const source = options.source;
  if (source?.keep === undefined) return options;
  await writeKeptConfiguration(options.home, source.keep);
  const file = keptConfigurationFile(options.home);
  options.logger.debug(`kept the configuration in ${file}, which portal node reload reads again`);
  return { ...options, source: { flag: source.flag, ticket: source.ticket, file } };
}

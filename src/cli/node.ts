/**
 * `portal node`: its sub-commands registered, each run from a file of its own loaded when it runs, so
 * that `portal node show` (a health check, run every few seconds) does not load the node itself.
 * `create` runs a node (node-create.ts), `show` reports whether it is UP (node-show.ts), `reload` makes it
 * read its configuration again (node-reload.ts), `drain` stops it gently (node-drain.ts).
 */
import type { Command } from 'commander';
import type { NodeCreateOptions } from './node-create.ts';
import type { NodeShowOptions } from './node-show.ts';
import type { NodeReloadOptions } from './node-reload.ts';

export function registerNode(program: Command): void {
  const node = program.command('node').description('run this machine as an inlet or outlet node');
  node
    .command('create')
    .description('enroll (once, with a ticket) and run a node with the given configuration')
    .option(
      '--foreground',
      'run in the foreground (required: use a service manager or container to run it in the background)',
    )
    .option(
      '--configuration <json-or-yaml>',
      'node configuration: a JSON document (read strictly: no trailing comma) or a YAML one, or a file holding one',
    )
    .option('--node-config <yaml>', 'node configuration that may carry the ticket under a ticket key')
    .option(
      '--enrollment-ticket <ticket>',
      'enrollment ticket (also ENROLLMENT_TICKET); needed only the first time, and visible to other users in ps: ' +
        'prefer --enrollment-ticket-file',
    )
    .option('--enrollment-ticket-file <path>', 'read the enrollment ticket from this file (- for standard input)')
    .action(async (options: NodeCreateOptions) => (await import('./node-create.ts')).runNode(options));
  node
    .command('show')
    .description(
      'print "The node is UP" and its details when every portal of the local node carries traffic; ' +
        'exit 1 when one does not (DEGRADED), none does (DOWN), or the node was revoked (REVOKED)',
    )
    .option('--ready', 'exit 0 while the node serves at least one of its portals (UP or DEGRADED): a health check')
    .option('--json', "print the node's status as JSON (GET /show), whatever it is")
    .action(async (options: NodeShowOptions) => (await import('./node-show.ts')).showNode(options));
  registerNodeReload(node);
  node
    .command('drain')
    .description(
      'stop the running node gently, as SIGTERM does: its outlets leave their pools first (no client of an ' +
        'inlet sees an error), then its connections finish for up to PORTAL_DRAIN_TIMEOUT; waits until it has stopped',
    )
    .action(async () => (await import('./node-drain.ts')).drainNode());
}

function registerNodeReload(node: Command): void {
  node
    .command('reload')
    .description(
      'make the running node read its configuration file again: portals added, removed or changed, ' +
        'the others untouched',
    )
    .option(
      '--configuration <json-or-yaml>',
      'the new configuration (a document, a file, or - for standard input) of a node started with its ' +
        'configuration inline or from a systemd credential: it replaces the copy the node keeps in PORTAL_HOME',
    )
    .action(async (options: NodeReloadOptions) => (await import('./node-reload.ts')).reloadNode(options));
}

/**
 * A running node reads its configuration file again (on SIGHUP, or `portal node reload`) and applies
 * what changed (portal-changes.ts). A configuration with any problem, one its identity does not grant,
 * or one that changes what only a restart can (the status server's port, the ticket) is refused, with
 * every problem located, and the running one stays. One reload runs at a time; one asked meanwhile
 * runs once after it. Each is logged and counted in /show, where `portal node reload` reads it.
 */
import { readFile } from 'node:fs/promises';
import { InputError, PortalError, RuntimeFailure, ValidationError, formatProblem } from '../shared/errors.ts';
import { product } from '../shared/product.ts';
import type { NodeConfig } from '../shared/types/node-config.ts';
import { parseNodeConfig } from './config.ts';
import type { Rule } from './config-rules.ts';
import type { StoredIdentity } from './identity-store.ts';
import type { NodeOptions } from './node-options.ts';
import type { NodePortalSet } from './node-portals.ts';
import { applyPortals, type AppliedChanges } from './portal-changes.ts';
import { portalsOf } from './portals.ts';
import type { ReloadOutcome, ReloadShow } from './reload-show.ts';
import { fitWithFreshGrants } from './grant-refresh.ts';
import { identityMisfit } from './ticket-fit.ts';

export type { ReloadOutcome } from './reload-show.ts';

export interface ReloaderOptions {
  readonly node: NodeOptions;
  readonly portals: NodePortalSet;
  /** The node's identity now, whose grants a new configuration must fit. */
  readonly identity: () => StoredIdentity;
  /**
   * A fresh certificate from the controller, for a configuration that needs a relay name the identity
   * lacks (granted since, perhaps). @default the identity is not refreshed
   */
  readonly refreshGrants?: () => Promise<StoredIdentity>;
}

/** Said after every problem of a refused reload: the node runs on with what it had. */
export const refusedHint = 'fix the configuration and reload again; the node carries on with the one it runs';

export class Reloader {
  private count = 0;
  private last: ReloadOutcome | null = null;
  /** The configuration running now: the one started with, then each one applied. */
  private running: NodeConfig;
  /** The reload under way, or a settled promise. */
  private queue: Promise<unknown> = Promise.resolve();
  /** A reload asked for while another runs: later asks share it (it reads the file as it is then). */
  private waiting: Promise<ReloadOutcome> | undefined;

  constructor(private readonly options: ReloaderOptions) {
    this.running = options.node.config;
  }

  state(): ReloadShow {
    return { count: this.count, last: this.last };
  }

  /** Reloads now, or once the reload under way is done. Never rejects: a refusal is an outcome. */
  reload(): Promise<ReloadOutcome> {
    if (this.waiting) return this.waiting;
    const run = this.queue.then(() => {
      this.waiting = undefined;
      return this.once();
    });
    this.waiting = run;
    this.queue = run;
    return run;
  }

  private async once(): Promise<ReloadOutcome> {
    const { node, portals } = this.options;
    const file = node.source?.file;
    try {
      if (portals.stopped)
        throw new RuntimeFailure('NODE_DOWN', 'the node is stopping', {
          hint: 'start it again with the new configuration',
        });
      if (!file) throw inlineConfiguration(node.source?.flag ?? '--configuration');
      const config = await this.read(file);
      const misfitOf = ({ record }: StoredIdentity) =>
        identityMisfit(
          config,
          { relays: record.relays, tls: record.tls, relayNode: false },
          {
            kind: 'enrolled',
            nodeId: record.nodeId,
            projectId: record.projectId,
            ticketGiven: false,
            retry: 'reload again',
          },
        );
      const { refreshGrants } = this.options;
      const { misfit } = refreshGrants
        ? await fitWithFreshGrants(misfitOf, this.options.identity(), refreshGrants)
        : { misfit: misfitOf(this.options.identity()) };
      if (misfit) throw misfit;
      const applied = await applyPortals(portals, portalsOf(config));
      this.running = config;
      return this.record(appliedOutcome(applied), file);
    } catch (error) {
      return this.record(refusedOutcome(error), file);
    }
  }

  /** The file's configuration as the node would run it, checked against what may not change live. */
  private async read(file: string): Promise<NodeConfig> {
    const { node } = this.options;
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new InputError(
        'CONFIGURATION_UNREADABLE',
        `cannot read the configuration file ${file}: ${error.code ?? error.message}`,
        {
          hint: 'put the file back where the node was started with it, or restart the node with another',
        },
      );
    });
    const { ticket: _ticket, ...config } = parseNodeConfig(file, text, {
      environment: node.environment ?? process.env,
      rules: (next) => liveRules(this.running, node.source?.ticket, next),
      hint: refusedHint,
    });
    return config;
  }

  private record(outcome: ReloadOutcome, file: string | undefined): ReloadOutcome {
    const { logger } = this.options.node;
    this.count += 1;
    this.last = outcome;
    if (outcome.outcome === 'applied') logger.info(`reloaded the configuration from ${file}: ${outcome.message}`);
    else if (outcome.outcome === 'failed')
      logger.warn(`reloaded the configuration from ${file} in part: ${outcome.message}; ${outcome.hint ?? ''}`);
    else {
      for (const problem of outcome.problems) logger.error(`reload refused: ${formatProblem(problem)}`);
      const why = outcome.problems.length > 0 ? refusedHint : `${outcome.message}; ${outcome.hint ?? refusedHint}`;
      logger.error(`reload refused: ${why}`);
    }
    return outcome;
  }
}

/** What a reload may not change: the status server's port, and the ticket a document carries. */
function liveRules(running: NodeConfig, ticket: string | undefined, next: NodeConfig): Rule[] {
  const rules: Rule[] = [];
  const port = (config: NodeConfig) => config['http-server-port'] ?? product.statusPort;
  if (port(next) !== port(running))
    rules.push({
      pointer: next['http-server-port'] === undefined ? '' : '/http-server-port',
      message:
        `the status server's port cannot change while the node runs (it runs with http-server-port ` +
        `${port(running)}); set it back, or restart the node to use ${port(next)}`,
    });
  if (next.ticket !== ticket)
    rules.push({
      pointer: next.ticket === undefined ? '' : '/ticket',
      message:
        'the ticket cannot change while the node runs (it is read once, at start); ' +
        'set it back, or restart the node with the new one',
    });
  return rules;
}

function inlineConfiguration(flag: string): InputError {
  return new InputError(
    'CONFIGURATION_INLINE',
    `the node was started with its configuration inline (${flag} '{…}'), so it has no file to read again`,
    {
      hint:
        `to reload a node live, start it with ${flag} FILE; ` +
        'to change this one, stop it and start it with the new configuration',
    },
  );
}

const none = { added: [], removed: [], changed: [], unchanged: 0 } as const;

function appliedOutcome(applied: AppliedChanges): ReloadOutcome {
  const names = (kind: string, portals: readonly { readonly name: string }[]) =>
    portals.map((portal) => `${kind} ${portal.name}`);
  const added = [...names('outlet', applied.outlets.added), ...names('inlet', applied.inlets.added)];
  const removed = [...names('outlet', applied.outlets.removed), ...names('inlet', applied.inlets.removed)];
  const changed = [
    ...names(
      'outlet',
      applied.outlets.changed.map(({ after }) => after),
    ),
    ...names(
      'inlet',
      applied.inlets.changed.map(({ after }) => after),
    ),
  ];
  const unchanged = applied.outlets.unchanged.length + applied.inlets.unchanged.length;
  const parts = [
    ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
    ...(changed.length > 0 ? [`replaced ${changed.join(', ')}`] : []),
  ];
  const summary =
    parts.length > 0 ? `${parts.join('; ')}; ${unchanged} unchanged` : `nothing changed (${unchanged} portals)`;
  const failed = applied.failures.length > 0;
  return {
    at: new Date().toISOString(),
    outcome: failed ? 'failed' : 'applied',
    message: failed ? `${applied.failures.join('; ')} (${summary})` : summary,
    problems: [],
    code: failed ? 'ADDRESS_IN_USE' : null,
    hint: failed ? 'free the address, or change the inlet, and reload again' : null,
    exit: failed ? 1 : 0,
    added,
    removed,
    changed,
    unchanged,
  };
}

function refusedOutcome(error: unknown): ReloadOutcome {
  const at = new Date().toISOString();
  if (error instanceof PortalError) {
    const problems = error instanceof ValidationError ? error.problems : [];
    return {
      at,
      outcome: 'refused',
      message: problems.length > 0 ? `${problems.length} problem${problems.length === 1 ? '' : 's'}` : error.message,
      problems,
      code: error.code,
      hint: error.hint ?? null,
      exit: error.exitCode,
      ...none,
    };
  }
  return {
    at,
    outcome: 'refused',
    message: `internal error: ${error instanceof Error ? error.message : String(error)}`,
    problems: [],
    code: 'INTERNAL',
    hint: 'the node carries on with the configuration it runs; its log says more',
    exit: 1,
    ...none,
  };
}

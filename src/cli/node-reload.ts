/**
 * `portal node reload [--configuration DOC|FILE|-]`: the node of this PORTAL_HOME reads its
 * configuration file again. The node is found through its runtime file, sent SIGHUP, and its /show
 * read until its reload count moves; the outcome is printed. With --configuration, the document first
 * replaces the one the node keeps in its home (a node started inline or from a systemd credential:
 * kept-configuration.ts), and is taken back if the node refuses it. Exit 0 when applied, 2 (with each
 * problem located) when the configuration is refused, 1 when no node runs or it does not answer.
 */
import { readConfigurationArgument } from '../node/config.ts';
import type { RuntimeRecord } from '../node/home-claim.ts';
import { keptConfigurationFile, readKeptConfiguration, writeKeptConfiguration } from '../node/kept-configuration.ts';
import type { NodeShow, ReloadOutcome, ReloadShow } from '../node/show.ts';
import { knownCode } from '../shared/error-codes.ts';
import { InputError, RuntimeFailure, ValidationError } from '../shared/errors.ts';
import { portalHome } from './home.ts';
import { runningNode } from './running-node.ts';
import { readNodeShow } from './status-request.ts';
import { configurationInputBytes, reloadAnswerMs, reloadPollMs, statusAnswerMs } from './limits.ts';
import { readStandardInput } from './ticket-input.ts';

export interface NodeReloadOptions {
  /** A new configuration (a document, a file, or - for standard input) for a node that keeps its own. */
  readonly configuration?: string;
}

export async function reloadNode(options: NodeReloadOptions): Promise<void> {
  const home = portalHome();
  const runtime = await runningNode(
    home,
    'start it with portal node create --foreground, or give the PORTAL_HOME it runs with',
  );
  const before = await reloadsOf(runtime);
  const replaced =
    options.configuration === undefined ? undefined : await replaceKept(home, runtime, options.configuration);
  let outcome: ReloadOutcome | undefined;
  try {
    outcome = await signalAndWait(runtime, before.count);
  } finally {
    // Not taken (refused, or no answer): the kept copy goes back to what the node runs.
    if (replaced !== undefined && outcome?.outcome !== 'applied' && outcome?.outcome !== 'failed')
      await writeKeptConfiguration(home, replaced.previous);
  }
  if (outcome.outcome === 'applied') {
    console.log(`Reloaded the configuration of the node (process ${runtime.pid}): ${outcome.message}.`);
    return;
  }
  // The problems of a document given here are located in it as given, not in the copy the node read.
  throw refusal(replaced ? locatedIn(outcome, keptConfigurationFile(home), replaced.name) : outcome);
}

function locatedIn(outcome: ReloadOutcome, kept: string, name: string): ReloadOutcome {
  const problems = outcome.problems.map((problem) => (problem.file === kept ? { ...problem, file: name } : problem));
  return { ...outcome, problems };
}

/**
 * Puts `value` in place of the configuration the node keeps; returns what was there, and the name of
 * what was given. A node that reads a file of its own is refused: the operator's file stays the one truth.
 */
async function replaceKept(
  home: string,
  runtime: RuntimeRecord,
  value: string,
): Promise<{ previous: string; name: string }> {
  const kept = keptConfigurationFile(home);
  if (runtime.configuration === undefined)
    throw new RuntimeFailure('NODE_DOWN', `the node (process ${runtime.pid}) is starting`, {
      hint: 'run portal node reload again once it is up',
    });
  if (runtime.configuration !== kept)
    throw new InputError(
      'BAD_FLAG',
      `the node (process ${runtime.pid}) reads its configuration from ${runtime.configuration}, ` +
        'so --configuration would be overwritten by that file at its next reload',
      { hint: `edit ${runtime.configuration} and run portal node reload without --configuration` },
    );
  const { name, text } =
    value === '-'
      ? { name: 'standard input', text: await standardInput() }
      : await readConfigurationArgument(value, '--configuration');
  const previous = await readKeptConfiguration(home);
  await writeKeptConfiguration(home, text);
  return { previous: previous ?? text, name };
}

async function standardInput(): Promise<string> {
  try {
    return await readStandardInput(configurationInputBytes);
  } catch (error) {
    throw new InputError(
      'CONFIGURATION_UNREADABLE',
      `cannot read the configuration from standard input: ${(error as Error).message}`,
      { hint: 'give --configuration - a JSON or YAML document on standard input, or a file' },
    );
  }
}

async function signalAndWait(runtime: RuntimeRecord, count: number): Promise<ReloadOutcome> {
  try {
    process.kill(runtime.pid, 'SIGHUP');
  } catch (error) {
    throw new RuntimeFailure(
      'NODE_DOWN',
      `cannot signal the node (process ${runtime.pid}): ${(error as Error).message}`,
      {
        hint: 'run portal node reload as the user the node runs as',
      },
    );
  }
  return outcomeAfter(runtime, count);
}

/** The node's reloads so far; a node that is not up yet, or of a version that does not reload, is refused. */
async function reloadsOf(runtime: RuntimeRecord): Promise<ReloadShow> {
  const shown = await showOf(runtime);
  if (!('reload' in shown)) {
    const starting = shown.status === 'enrolling' || shown.status === 'starting';
    throw new RuntimeFailure(
      'NODE_DOWN',
      starting
        ? `the node (process ${runtime.pid}) is ${shown.status} and cannot reload yet`
        : `the node (process ${runtime.pid}, Portal ${shown.version}) does not reload its configuration live`,
      {
        hint: starting
          ? 'run portal node reload again once it is up'
          : 'restart it to apply the configuration, or upgrade it',
      },
    );
  }
  return shown.reload;
}

/** The outcome of the first reload counted after `count`, waiting up to reloadAnswerMs. */
async function outcomeAfter(runtime: RuntimeRecord, count: number): Promise<ReloadOutcome> {
  const deadline = Date.now() + reloadAnswerMs;
  for (;;) {
    const shown = await showOf(runtime);
    if ('reload' in shown && shown.reload.count > count && shown.reload.last) return shown.reload.last;
    if (Date.now() > deadline)
      throw new RuntimeFailure(
        'NODE_DOWN',
        `the node (process ${runtime.pid}) did not say within ${reloadAnswerMs / 1000} s whether it reloaded`,
        { hint: 'check its log: it logs every reload, applied or refused' },
      );
    await new Promise((resolve) => setTimeout(resolve, reloadPollMs));
  }
}

async function showOf(runtime: RuntimeRecord): Promise<NodeShow> {
  if (runtime.statusPort === undefined)
    throw new RuntimeFailure('NODE_DOWN', `the node (process ${runtime.pid}) is starting`, {
      hint: 'run portal node reload again once it is up',
    });
  try {
    return await readNodeShow(runtime.statusPort, statusAnswerMs);
  } catch (error) {
    throw new RuntimeFailure(
      'NODE_DOWN',
      `the node's status server on 127.0.0.1:${runtime.statusPort} did not answer ` +
        `(${(error as Error).message}; process ${runtime.pid})`,
      { hint: 'check its log' },
    );
  }
}

/** The error the refused (or partly failed) reload stands for, as the node worded it. */
function refusal(outcome: ReloadOutcome): Error {
  if (outcome.problems.length > 0) return new ValidationError(outcome.problems, outcome.hint ?? undefined);
  const code = knownCode(outcome.code, outcome.exit === 2 ? 'INVALID_INPUT' : 'INTERNAL');
  const words = outcome.outcome === 'failed' ? `the reload was applied in part: ${outcome.message}` : outcome.message;
  const hint = { hint: outcome.hint ?? 'check the node log' };
  return outcome.exit === 2 ? new InputError(code, words, hint) : new RuntimeFailure(code, words, hint);
}

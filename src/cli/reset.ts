/** `portal reset`: stops what `portal enroll` started and removes this machine's Portal state. */
import { statSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { drainFromEnvironment } from '../shared/graceful-stop.ts';
import { stopWaitMs } from '../shared/stop-wait.ts';
import { runningHolder, type RuntimeRecord } from '../node/home-claim.ts';
import { readIdentityRecord, type IdentityRecord } from '../node/identity-store.ts';
import { nodeDirectory, runtimeFile } from '../node/runtime-file.ts';
import { identityLeftLine, revokedNoteFile } from '../node/self-revocation.ts';
import { relayDirectory } from '../relay/relay-node.ts';
import { othersHosted, readControllerHoldings, whatIsLost, type HoldingsReading } from './controller-holdings.ts';
import { readEmbeddedController, stopEmbeddedController } from './embedded-controller.ts';
import { installationEntries, portalHome } from './home.ts';
import { resetPollMs } from './limits.ts';

export function registerReset(program: Command): void {
  program
    .command('reset')
    .description(
      'stop the embedded controller and remove the Portal state under $PORTAL_HOME (the installed program stays); ' +
        'with --yes, a node or relay running with this home is stopped first; an embedded controller that hosts ' +
        'other projects, active members or unused tickets goes only when a terminal or --delete-controller confirms it',
    )
    .option('--yes', 'do not ask for confirmation, and stop a node or relay that runs with this home')
    .option(
      '--delete-controller',
      'delete the embedded controller even when it hosts other projects, active members or unused tickets ' +
        '(without it, only a terminal can confirm that)',
    )
    .action(async (options: { yes?: boolean; deleteController?: boolean }) => {
      const home = portalHome();
      // How long a node or relay told to stop may take: its drain, as this environment gives it, and a margin.
      const waitMs = stopWaitMs(drainFromEnvironment(process.env));
      const running = await runningProcesses(home);
      if (!options.yes && running.length > 0) {
        const what = running.map(({ what, holder }) => `${what} (process ${holder.pid})`).join(' and ');
        throw new InputError(
          'HOME_IN_USE',
          `${what} runs with PORTAL_HOME=${home}: resetting would remove its identity while it carries traffic`,
          {
            hint: 'stop it first, or run portal reset --yes to stop it and reset',
          },
        );
      }
      const holdings = await readControllerHoldings(home);
      const hosted = holdings && othersHosted(holdings);
      if (hosted && !options.deleteController) {
        // --yes confirms removing this machine's state, not other people's portals: that takes a person or the flag.
        if (!process.stdin.isTTY)
          throw new InputError(
            'CONTROLLER_IN_USE',
            `portal reset would delete the embedded controller under ${home}, and ${hosted}; nothing was removed`,
            {
              hint:
                'to delete it with all it holds, run portal reset --yes --delete-controller; to keep it, take out ' +
                'what it still serves first (portal project members and tickets; portal project retire) ' +
                'or keep this PORTAL_HOME',
            },
          );
        const question =
          `The embedded controller under ${home} serves more than this machine: ${hosted}.\n` +
          `portal reset would delete it, and with it ${lossOf(holdings)}.\n` +
          'Type yes to delete it: ';
        if (!/^yes$/i.test(await ask(question))) {
          console.log('Nothing was removed.');
          return;
        }
      } else if (!options.yes) {
        if (!process.stdin.isTTY)
          throw new InputError(
            'CONFIRMATION_NEEDED',
            `portal reset removes the identities and projects under ${home}`,
            { hint: 'add --yes to confirm' },
          );
        if (!/^y(es)?$/i.test(await ask(`Remove the Portal state under ${home}? [y/N] `))) return;
      }
      for (const { what, file, holder } of running) {
        await stopProcess(holder, what, file, waitMs);
        console.log(`Stopped ${what} (process ${holder.pid}).`);
      }
      // Read before they go: the identities removed stay members of their projects, which is said after.
      const identities = await memberIdentities(home);
      const controller = await readEmbeddedController(home);
      if (controller) await stopEmbeddedController(controller);
      const entries = await readdir(home).catch(() => [] as string[]);
      const keep = new Set<string>(installationEntries);
      await Promise.all(
        entries
          .filter((entry) => !keep.has(entry))
          .map((entry) => rm(join(home, entry), { recursive: true, force: true })),
      );
      if (entries.every((entry) => !keep.has(entry))) await rm(home, { recursive: true, force: true });
      console.log(`Reset: removed the Portal state under ${home}.`);
      if (holdings) console.log(`Deleted the embedded controller, with ${lossOf(holdings)}.`);
      for (const { what, record, revokedAt } of identities) console.log(identityLeftLine(what, record, revokedAt));
    });
}

function lossOf(reading: HoldingsReading): string {
  return 'holdings' in reading
    ? whatIsLost(reading.holdings)
    : 'its store, its audit trail and the sealing key without which its backups cannot be restored';
}

async function ask(question: string): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await prompt.question(question)).trim();
  } finally {
    prompt.close();
  }
}

interface MemberIdentity {
  readonly what: 'node' | 'relay';
  readonly record: IdentityRecord;
  /** When the node learnt its project revoked it, if it did. */
  readonly revokedAt: string | undefined;
}

/** The node and relay identities under `home`: members of their projects until an administrator revokes them. */
async function memberIdentities(home: string): Promise<MemberIdentity[]> {
  const found = await Promise.all(
    (['node', 'relay'] as const).map(async (what) => {
      const directory = what === 'node' ? nodeDirectory(home) : relayDirectory(home);
      const record = await readIdentityRecord(directory);
      if (!record) return undefined;
      const note = await readFile(revokedNoteFile(directory), 'utf8').catch(() => undefined);
      return { what, record, revokedAt: revokedAtOf(note, record.nodeId) };
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

function revokedAtOf(note: string | undefined, nodeId: string): string | undefined {
  try {
    const parsed = JSON.parse(note ?? '') as { node_id?: unknown; revoked_at?: unknown };
    return parsed.node_id === nodeId && typeof parsed.revoked_at === 'string' ? parsed.revoked_at : undefined;
  } catch {
    return undefined;
  }
}

interface Running {
  readonly what: string;
  readonly file: string;
  readonly holder: RuntimeRecord;
}

async function runningProcesses(home: string): Promise<Running[]> {
  const found = await Promise.all(
    [
      { what: 'the node', file: runtimeFile(home) },
      { what: 'the relay', file: join(relayDirectory(home), 'runtime.json') },
    ].map(async ({ what, file }) => {
      const holder = await runningHolder(file);
      return holder ? { what, file, holder } : undefined;
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

/**
 * SIGTERM, then waits until the process has let go of its home; one that does not stop in time is
 * left running, and said. Only "no such process" means it is gone: one of another user (a node run
 * by root) refuses the signal, and runs on.
 */
async function stopProcess(holder: RuntimeRecord, what: string, file: string, waitMs: number): Promise<void> {
  try {
    process.kill(holder.pid, 'SIGTERM');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return;
    if (code !== 'EPERM') throw error;
    throw new RuntimeFailure(
      'NOT_PERMITTED',
      `${what} (process ${holder.pid}) belongs to another user${ownerOf(holder.pid)}, ` +
        'so portal reset may not stop it; nothing was removed',
      {
        hint: `stop it as that user or as root (kill ${holder.pid}), then run portal reset --yes again`,
      },
    );
  }
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    if ((await runningHolder(file))?.pid !== holder.pid) return;
    await new Promise((resolve) => setTimeout(resolve, resetPollMs));
  }
  throw new RuntimeFailure(
    'STOP_TIMED_OUT',
    `${what} (process ${holder.pid}) did not stop within ${waitMs / 1000} s of SIGTERM; nothing was removed`,
    {
      hint:
        `stop it (kill ${holder.pid}) and run portal reset --yes again, ` +
        `with PORTAL_DRAIN_TIMEOUT as ${what} has it if it drains longer`,
    },
  );
}

/** " (uid N)" for the user a process runs as, where the system tells (Linux); else nothing. */
function ownerOf(pid: number): string {
  try {
    return ` (uid ${statSync(`/proc/${pid}`).uid})`;
  } catch {
    return '';
  }
}

/** The `portal` command: one sub-command per file in this folder. Only main() sets the exit code. */
import { CommanderError } from 'commander';
import { lingerAfterStopMs } from './limits.ts';
import { buildProgram, registrationsFor } from './program.ts';
import { reportFailure } from './report.ts';
import { stoppedAtOnce, stoppedOnSignal } from '../shared/graceful-stop.ts';
import { tuneHeapForDataPath } from '../shared/heap-tuning.ts';

export async function main(argv: readonly string[]): Promise<number> {
  tuneHeapForDataPath();
  try {
    await buildProgram(await registrationsFor(argv)).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message already; help and version are not failures.
      return error.exitCode === 0 ? 0 : 2;
    }
    const report = reportFailure(error, process.env.NODE_DEVELOPER === 'true');
    for (const line of report.lines) console.error(line);
    return report.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
// Stopped on a signal, everything is closed: a handle something left open must not keep the process
// (and a service manager's stop) waiting.
if (stoppedOnSignal()) setTimeout(() => process.exit(), stoppedAtOnce() ? 0 : lingerAfterStopMs).unref();

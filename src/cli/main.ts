/** The `portal` command: one sub-command per file in this folder. Only main() sets the exit code. */
import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { registerCompile } from './compile.ts';
import { registerController } from './controller.ts';
import { registerEnroll } from './enroll.ts';
import { lingerAfterStopMs } from './limits.ts';
import { registerNode } from './node.ts';
import { registerProject } from './project.ts';
import { registerRelay } from './relay.ts';
import { registerReset } from './reset.ts';
import { registerService } from './service.ts';
import { reportFailure } from './report.ts';
import { stoppedAtOnce, stoppedOnSignal } from '../shared/graceful-stop.ts';
import { tuneHeapForDataPath } from '../shared/heap-tuning.ts';

export function buildProgram(): Command {
  const program = new Command('portal')
    .description('Portal: end-to-end secured TCP portals between an inlet and an outlet')
    .version(packageJson.version, '-V, --version')
    .showHelpAfterError('(run portal --help for usage)')
    .exitOverride();
  registerCompile(program);
  registerEnroll(program);
  registerProject(program);
  registerNode(program);
  registerController(program);
  registerRelay(program);
  registerReset(program);
  registerService(program);
  const exitOverride = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  tuneHeapForDataPath();
  try {
    await buildProgram().parseAsync([...argv], { from: 'user' });
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

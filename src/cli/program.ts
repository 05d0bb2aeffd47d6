/** The `portal` program: every sub-command registered, nothing run. main.ts parses and runs it. */
import { Command } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { registerCompile } from './compile.ts';
import { registerController } from './controller.ts';
import { registerEnroll } from './enroll.ts';
import { registerNode } from './node.ts';
import { registerProject } from './project.ts';
import { registerRelay } from './relay.ts';
import { registerReset } from './reset.ts';
import { registerService } from './service.ts';

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

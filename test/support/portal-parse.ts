// Parses a `portal` command line against the real program of src/cli, with every action replaced by
// one that does nothing: an unknown command, an unknown option, a missing argument or value is what
// commander says it is, and nothing runs.
import { Command, CommanderError } from 'commander';
import { buildProgram, registrationsFor } from '../../src/cli/program.ts';

const everyCommand = await registrationsFor();

/** Commander keeps the action it runs here; a command without one (a group) stays without. */
type WithActionHandler = Command & { _actionHandler?: unknown };

function withoutActions(command: Command): void {
  if ((command as WithActionHandler)._actionHandler) command.action(() => undefined);
  command.configureOutput({ writeOut: () => undefined, writeErr: () => undefined, outputError: () => undefined });
  command.commands.forEach(withoutActions);
}

/**
 * What commander refuses in `args` (the words after `portal`), or undefined when it parses. `--help`
 * and `--version` parse.
 */
export function portalParseProblem(args: readonly string[]): string | undefined {
  const program = buildProgram(everyCommand);
  withoutActions(program);
  try {
    program.parse([...args], { from: 'user' });
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? undefined : error.message;
    return error instanceof Error ? error.message : String(error);
  }
}

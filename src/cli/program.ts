/**
 * The `portal` program: its sub-commands registered, nothing run. main.ts parses and runs it. Each
 * sub-command's file is loaded only when that command runs (the bundle keeps each in its own chunk),
 * so that `portal compile` does not load the controller's database layer, nor `portal node` the
 * compiler's templates.
 */
import { Command } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };

type Register = (program: Command) => void;

/** In the order `portal --help` lists them. */
const commands: Readonly<Record<string, () => Promise<Register>>> = {
  compile: () => import('./compile.ts').then((module) => module.registerCompile),
  enroll: () => import('./enroll.ts').then((module) => module.registerEnroll),
  project: () => import('./project.ts').then((module) => module.registerProject),
  node: () => import('./node.ts').then((module) => module.registerNode),
  controller: () => import('./controller.ts').then((module) => module.registerController),
  relay: () => import('./relay.ts').then((module) => module.registerRelay),
  console: () => import('./console.ts').then((module) => module.registerConsole),
  reset: () => import('./reset.ts').then((module) => module.registerReset),
  service: () => import('./service.ts').then((module) => module.registerService),
};

/** The registrations `args` (the words after `portal`) needs: its command's, or all for help and mistakes. */
export async function registrationsFor(args: readonly string[] = []): Promise<Register[]> {
  if (args.length === 1 && (args[0] === '-V' || args[0] === '--version')) return [];
  const named = Object.hasOwn(commands, args[0] ?? '') ? commands[args[0] as string] : undefined;
  if (named) return [await named()];
  return Promise.all(Object.values(commands).map((load) => load()));
}

export function buildProgram(registrations: readonly Register[]): Command {
  const program = new Command('portal')
    .description('Portal: end-to-end secured TCP portals between an inlet and an outlet')
    .version(packageJson.version, '-V, --version')
    .showHelpAfterError('(run portal --help for usage)')
    .exitOverride();
  for (const register of registrations) register(program);
  const exitOverride = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(exitOverride);
  };
  exitOverride(program);
  return program;
}

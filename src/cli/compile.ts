/** `portal compile <manifest...> [--out DIR]`: every manifest validated first, then all written at once. */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Command } from 'commander';
import { compileUseCase } from '../compile/compile.ts';
import { manifestProblems } from '../compile/manifest.ts';
import { parseYamlSource } from '../shared/yaml-source.ts';
import { isLoopbackHost, parseHostPort } from '../shared/address.ts';
import { InputError, ValidationError, printable, type Problem } from '../shared/errors.ts';
import type { CompileSettings } from '../compile/model.ts';
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { writeOutputs } from './write-outputs.ts';

export interface CompileOptions {
  /** Folder that receives one sub-folder per use case. @default "out" */
  readonly out: string;
  /** Address of install.sh, written into the guides, tickets.sh and the stacks' InstallUrl default. */
  readonly installUrl?: string;
  /** host:port of the controller the nodes enroll with, written into the guides and tickets.sh. */
  readonly controller?: string;
}

export function registerCompile(program: Command): void {
  program
    .command('compile')
    .description('compile use-case manifests into tickets.sh, node configurations, stacks, compose files and guides')
    .argument('<manifest...>', 'use-case manifests (YAML), such as usecases/postgres.yaml')
    .option('-o, --out <dir>', 'output folder; each use case goes to <dir>/<usecase>/', 'out')
    .option(
      '--install-url <url>',
      'the https address of your install.sh (default: none; the guides say how to install from a release)',
    )
    .option(
      '--controller <host:port>',
      'the controller the nodes enroll with, an address both reach (default: none; tickets.sh asks for it)',
    )
    .action(async (files: string[], options: CompileOptions) => {
      const written = await compileManifests(files, options);
      for (const warning of settingWarnings(options)) console.error(`portal: warning: ${warning}`);
      for (const { usecase, folder, count } of written) {
        console.log(`compiled ${usecase}: ${count} files in ${folder}`);
      }
    });
}

export async function compileManifests(files: readonly string[], options: CompileOptions) {
  const settings = compileSettings(options);
  const loaded: LoadedManifest[] = [];
  const problems: Problem[] = [];
  for (const file of files) {
    const text = await readManifest(file);
    const result = manifestProblems(file, text);
    problems.push(...result.problems);
    if (result.manifest) loaded.push({ file, text, manifest: result.manifest });
  }
  problems.push(...duplicateUseCases(loaded));
  if (problems.length > 0) throw new ValidationError(problems);
  const manifests = loaded.map(({ manifest }) => manifest);

  const sets = manifests.map((manifest) => ({
    usecase: manifest.usecase,
    artifacts: compileUseCase(manifest, settings),
  }));
  const folders = await writeOutputs(options.out, sets);
  return sets.map((set, index) => ({
    usecase: set.usecase,
    count: set.artifacts.length,
    folder: relative(process.cwd(), folders[index] as string) || '.',
  }));
}

/** The settings, checked: an installer address over https, a controller address other machines can dial. */
function compileSettings(options: CompileOptions): CompileSettings {
  const { installUrl, controller } = options;
  if (installUrl !== undefined && !/^https:\/\/[^\s'"]+$/.test(installUrl)) {
    throw new InputError('BAD_FLAG', `--install-url ${printable(installUrl)} is not an https address`, {
      hint: 'give the https address your install.sh is served at, such as https://downloads.example.net/install.sh',
    });
  }
  if (controller !== undefined) {
    const parsed = parseHostPort(controller);
    if (!parsed.ok)
      throw new InputError(
        'BAD_FLAG',
        `--controller ${printable(controller)}: expected host:port, but ${parsed.reason}`,
        {
          hint: 'give the address both nodes reach the controller at, such as controller.example.net:4000',
        },
      );
    if (isLoopbackHost(parsed.address.host))
      throw new InputError(
        'BAD_FLAG',
        `--controller ${controller} is a loopback address, which only this machine reaches`,
        {
          hint: 'give the name or address the nodes dial, such as controller.example.net:4000',
        },
      );
  }
  return {
    ...(installUrl !== undefined ? { installUrl } : {}),
    ...(controller !== undefined ? { controller } : {}),
  };
}

/** One line for each address the compiler was not given, so that nobody takes a blank for a default. */
function settingWarnings(options: CompileOptions): string[] {
  const warnings: string[] = [];
  if (options.controller === undefined) {
    warnings.push(
      'no --controller: the nodes must reach the controller you enroll with, which the compiler cannot know; ' +
        'tickets.sh asks for it (--controller HOST:PORT --code CODE, or --public-address HOST:PORT), ' +
        'as step 3 of each guide says',
    );
  }
  if (options.installUrl === undefined) {
    warnings.push(
      'no --install-url: the guides say how to install portal from a release, and the stacks ask for ' +
        'the address of your install.sh (InstallUrl)',
    );
  }
  return warnings;
}

async function readManifest(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError('MANIFEST_UNREADABLE', `cannot read ${file}: ${reason}`, {
      hint: 'give the path of a use-case manifest, such as usecases/postgres.yaml',
      cause: error,
    });
  }
}

interface LoadedManifest {
  readonly file: string;
  readonly text: string;
  readonly manifest: UseCaseManifest;
}

function duplicateUseCases(loaded: readonly LoadedManifest[]): Problem[] {
  const firstFile = new Map<string, string>();
  const problems: Problem[] = [];
  for (const { file, text, manifest } of loaded) {
    const earlier = firstFile.get(manifest.usecase);
    if (earlier === undefined) {
      firstFile.set(manifest.usecase, file);
      continue;
    }
    const message =
      `use case "${manifest.usecase}" is also defined by ${earlier}; ` + 'give each manifest its own usecase name';
    problems.push(parseYamlSource(file, text).problem('/usecase', message));
  }
  return problems;
}

/** `portal compile <manifest...> [--out DIR]`: every manifest validated first, then all written at once. */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Command } from 'commander';
import { compileUseCase } from '../compile/compile.ts';
import { manifestProblems } from '../compile/manifest.ts';
import { parseYamlSource } from '../shared/yaml-source.ts';
import { InputError, ValidationError, type Problem } from '../shared/errors.ts';
import type { UseCaseManifest } from '../shared/types/manifest.ts';
import { writeOutputs } from './write-outputs.ts';

export interface CompileOptions {
  /** Folder that receives one sub-folder per use case. @default "out" */
  readonly out: string;
}

export function registerCompile(program: Command): void {
  program
    .command('compile')
    .description('compile use-case manifests into tickets.sh, node configurations, stacks, compose files and guides')
    .argument('<manifest...>', 'use-case manifests (YAML), such as usecases/postgres.yaml')
    .option('-o, --out <dir>', 'output folder; each use case goes to <dir>/<usecase>/', 'out')
    .action(async (files: string[], options: CompileOptions) => {
      const written = await compileManifests(files, options);
      for (const { usecase, folder, count } of written) {
        console.log(`compiled ${usecase}: ${count} files in ${folder}`);
      }
    });
}

export async function compileManifests(files: readonly string[], options: CompileOptions) {
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

  const sets = manifests.map((manifest) => ({ usecase: manifest.usecase, artifacts: compileUseCase(manifest) }));
  const folders = await writeOutputs(options.out, sets);
  return sets.map((set, index) => ({
    usecase: set.usecase,
    count: set.artifacts.length,
    folder: relative(process.cwd(), folders[index] as string) || '.',
  }));
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

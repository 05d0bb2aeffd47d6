/** The bundled use cases, parsed and compiled in memory, plus edited copies for bad-input tests. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { compileUseCase, type Artifact } from '../../src/compile/compile.ts';
import { parseManifest } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';

export const projectRoot = new URL('../../', import.meta.url).pathname;
export const usecasesDirectory = join(projectRoot, 'usecases');

export function bundledUseCaseFiles(): string[] {
  return readdirSync(usecasesDirectory)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => join('usecases', name));
}

export function manifestText(usecase: string): string {
  return readFileSync(join(usecasesDirectory, `${usecase}.yaml`), 'utf8');
}

export function loadManifest(usecase: string): UseCaseManifest {
  return parseManifest(`usecases/${usecase}.yaml`, manifestText(usecase));
}

export function compiled(usecase: string): Map<string, Artifact> {
  return new Map(compileUseCase(loadManifest(usecase)).map((artifact) => [artifact.path, artifact]));
}

export function artifactText(usecase: string, path: string): string {
  const artifact = compiled(usecase).get(path);
  if (!artifact) throw new Error(`${usecase} has no ${path}`);
  return artifact.content;
}

/** The manifest of `usecase` with values replaced (path → value; undefined deletes). Comments and layout survive. */
export function editedManifest(
  usecase: string,
  edits: ReadonlyArray<readonly [readonly (string | number)[], unknown]>,
): string {
  const doc = parseDocument(manifestText(usecase));
  for (const [path, value] of edits) {
    if (value === undefined) doc.deleteIn(path);
    else doc.setIn(path, value);
  }
  return doc.toString();
}

export const allUseCases = ['api', 'bedrock', 'postgres', 'redis', 'shop', 'warehouse', 'webhook'] as const;
/** Every use case compiles to compose files; these set container options of their own. */
export const containerUseCases = ['bedrock', 'postgres', 'redis', 'warehouse'] as const;

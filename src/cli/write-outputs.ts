/**
 * The one place the compiler's output touches the disk. Each use case is written to a temporary folder
 * beside its destination and swapped into place only when every file is written, so a failure leaves
 * the previous output as it was and no half-written folder behind.
 */
import { chmod, mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Artifact } from '../compile/compile.ts';
import { RuntimeFailure } from '../shared/errors.ts';

export interface OutputSet {
  readonly usecase: string;
  readonly artifacts: readonly Artifact[];
}

export async function writeOutputs(outDir: string, sets: readonly OutputSet[]): Promise<string[]> {
  const root = resolve(outDir);
  await mkdir(root, { recursive: true }).catch((error: unknown) => {
    throw new RuntimeFailure(
      'OUTPUT_NOT_WRITABLE',
      `cannot create the output folder ${outDir}: ${(error as Error).message}`,
      {
        hint: 'choose a writable folder with --out',
        cause: error,
      },
    );
  });
  const staged: { from: string; to: string }[] = [];
  try {
    for (const { usecase, artifacts } of sets) {
      const temporary = await mkdtemp(join(root, `.${usecase}.partial-`));
      staged.push({ from: temporary, to: join(root, usecase) });
      // mkdtemp makes the folder private; the output is an ordinary folder.
      await chmod(temporary, 0o755 & ~process.umask());
      for (const artifact of artifacts) {
        const path = join(temporary, artifact.path);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, artifact.content, { mode: artifact.mode });
      }
    }
  } catch (error) {
    await Promise.all(staged.map(({ from }) => rm(from, { recursive: true, force: true })));
    throw new RuntimeFailure('OUTPUT_NOT_WRITABLE', `cannot write to ${outDir}: ${(error as Error).message}`, {
      hint: 'free some space or choose another folder with --out; nothing was changed',
      cause: error,
    });
  }
  for (const { from, to } of staged) await swapInto(from, to);
  return staged.map(({ to }) => to);
}

async function swapInto(from: string, to: string): Promise<void> {
  const previous = `${from}.previous`;
  const exists = await stat(to).then(
    () => true,
    () => false,
  );
  if (exists) await rename(to, previous);
  await rename(from, to);
  if (exists) await rm(previous, { recursive: true, force: true });
}

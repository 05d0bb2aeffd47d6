/**
 * The end of a test's administrator home: what `portal reset --yes --delete-controller` does to it (its
 * embedded controller stopped, the home removed), for tests whose subject that command is not, without
 * starting a program. `portal reset` itself is tested as a program in test/cli and test/e2e/cleanup.
 */
import { readFile, rm } from 'node:fs/promises';
import { stopEmbeddedController, type EmbeddedController } from '../../src/cli/embedded-controller.ts';
import { embeddedControllerRuntime } from '../../src/cli/home.ts';

export async function removeAdminHome(home: string): Promise<void> {
  const runtime = await readFile(embeddedControllerRuntime(home), 'utf8').catch(() => undefined);
  // Stopped by its pid whether or not it still answers: a hung controller must not outlive its test.
  if (runtime !== undefined) await stopEmbeddedController(JSON.parse(runtime) as EmbeddedController);
  await rm(home, { recursive: true, force: true });
}

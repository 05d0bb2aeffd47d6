import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { compileManifests } from '../../src/cli/compile.ts';
import { bundledUseCaseFiles, projectRoot } from '../support/usecases.ts';

const goldenDirectory = join(projectRoot, 'out');

async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

describe('golden output (out/)', () => {
  let fresh: string;

  before(async () => {
    if (process.env.UPDATE_GOLDEN === '1') {
      await compileManifests(bundledUseCaseFiles(), { out: goldenDirectory });
    }
    fresh = await mkdtemp(join(tmpdir(), 'portal-golden-'));
    await compileManifests(bundledUseCaseFiles(), { out: fresh });
  });

  after(async () => {
    await rm(fresh, { recursive: true, force: true });
  });

  it('holds exactly the files the bundled manifests compile to (UPDATE_GOLDEN=1 regenerates)', async () => {
    assert.deepEqual(await listTree(goldenDirectory), await listTree(fresh));
  });

  it('matches a fresh compile byte for byte, executable bits included', async () => {
    for (const path of await listTree(fresh)) {
      const [expected, actual] = await Promise.all([
        readFile(join(goldenDirectory, path)),
        readFile(join(fresh, path)),
      ]);
      assert.ok(
        expected.equals(actual),
        `out/${path} differs from a fresh compile; run UPDATE_GOLDEN=1 npm run test:unit and review the diff`,
      );
      const [goldenMode, freshMode] = await Promise.all([stat(join(goldenDirectory, path)), stat(join(fresh, path))]);
      assert.equal(goldenMode.mode & 0o111, freshMode.mode & 0o111, `out/${path} executable bit`);
    }
  });

  it('has the files of DESIGN.md section 2 for each use case', async () => {
    const common = [
      'README.md',
      'inlet.compose.yaml',
      'inlet.json',
      'inlet.stack.yaml',
      'k8s/inlet.yaml',
      'k8s/outlet.yaml',
      'outlet.compose.yaml',
      'outlet.json',
      'outlet.stack.yaml',
      'tickets.sh',
    ];
    const byUseCase: Record<string, string[]> = {};
    for (const path of await listTree(fresh)) {
      const [usecase, ...file] = path.split('/') as [string, ...string[]];
      (byUseCase[usecase] ??= []).push(file.join('/'));
    }
    assert.deepEqual(byUseCase, {
      api: common,
      bedrock: common,
      // postgres asks for a control plane of its own (control-plane: in its manifest).
      postgres: [
        ...common,
        'control-plane/README.md',
        'control-plane/compose.yaml',
        'control-plane/k8s/controllers.yaml',
        'control-plane/k8s/relays.yaml',
        'control-plane/stack.yaml',
      ].sort(),
      redis: common,
      shop: common,
      warehouse: common,
      webhook: [...common, 'webhook_receiver.py'],
    });
  });
});

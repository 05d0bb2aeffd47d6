import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileUseCase } from '../../src/compile/compile.ts';
import { manifestProblems } from '../../src/compile/manifest.ts';
import type { UseCaseManifest } from '../../src/shared/types/manifest.ts';
import { bootScriptOfStack, renderedBootScript } from '../support/boot-script.ts';
import { allUseCases, artifactText, projectRoot } from '../support/usecases.ts';
import { endpointParameterValues } from './resolved-use-cases.ts';

/** shellcheck's findings of warning level and above: empty when the script is clean. */
function shellcheck(script: string, shell: 'sh' | 'bash'): string {
  const result = spawnSync('shellcheck', ['--severity=warning', `--shell=${shell}`, '--format=gcc', '-'], {
    input: script,
    encoding: 'utf8',
  });
  assert.equal(result.error, undefined, 'shellcheck is installed (Debian package shellcheck; .ci/run installs it)');
  return result.stdout.trim();
}

/** The body of a quoted here-document the script writes, such as the status loop. */
function hereDocument(script: string, marker: string): string {
  const body = new RegExp(`<<'${marker}'\\n([\\s\\S]*?)\\n${marker}\\n`).exec(script)?.[1];
  assert.ok(body, `the script writes ${marker}`);
  return body;
}

describe('shell scripts Portal ships pass shellcheck (warnings and errors)', () => {
  it('install.sh, as the POSIX sh that `curl … | sh` runs', () => {
    assert.equal(shellcheck(readFileSync(join(projectRoot, 'install.sh'), 'utf8'), 'sh'), '');
  });

  for (const usecase of allUseCases) {
    it(`${usecase}: tickets.sh, both boot scripts and the status loop and sealing-key script they write`, () => {
      assert.equal(shellcheck(artifactText(usecase, 'tickets.sh'), 'bash'), '');
      for (const role of ['outlet', 'inlet'] as const) {
        const boot = renderedBootScript(usecase, role, endpointParameterValues);
        assert.equal(shellcheck(boot, 'bash'), '', `${role} boot script`);
        assert.equal(shellcheck(hereDocument(boot, 'PORTAL_STATUS_LOOP'), 'bash'), '', `${role} status loop`);
        assert.equal(shellcheck(hereDocument(boot, 'PORTAL_SEALING_KEY'), 'bash'), '', `${role} sealing-key script`);
      }
    });
  }

  it("a pool's outlet boot script (outlet.replicas), which reads its replica from the instance metadata", () => {
    const { manifest } = manifestProblems(
      'pool.yaml',
      'usecase: db\ntitle: A database\noutlet: { to: "db:5432", replicas: 2 }\ninlet: { port: 15432 }\n',
    );
    const stack = compileUseCase(manifest as UseCaseManifest).find((artifact) => artifact.path === 'outlet.stack.yaml');
    const boot = bootScriptOfStack(stack?.content ?? '', 'db-outlet');
    assert.match(boot, /PortalReplica/);
    assert.equal(shellcheck(boot, 'bash'), '');
  });
});

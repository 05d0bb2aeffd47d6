import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { ProbeRequest, ProbeResult } from '../support/ipv6-source-probe.ts';
import { start, type Running } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

/** The full path of `command` on PATH; fails the test, naming the package, when it is missing. */
function required(command: string, debianPackage: string): string {
  const found = spawnSync('bash', ['-c', `command -v '${command}'`], { encoding: 'utf8' }).stdout.trim();
  assert.ok(
    found.startsWith('/'),
    `${command} is missing: this test needs a private network namespace; ` +
      `install the Debian package ${debianPackage} (as root: apt-get install ${debianPackage})`,
  );
  return found;
}

/**
 * In a network namespace of its own (nothing of the host's network is touched), loopback gets every
 * address of the request as a /64, then the probe runs with the request as its argument.
 */
const inNamespace = `set -euo pipefail
ip link set lo up
for address in "$@"; do ip -6 addr add "$address/64" dev lo nodad; done
exec "${process.execPath}" --import tsx "${join(projectRoot, 'test/support/ipv6-source-probe.ts')}" "$PROBE_REQUEST"`;

describe('admission over IPv6: one /64 is one source, however many of its addresses a peer uses', function () {
  this.timeout(30_000);
  let probe: Running | undefined;

  afterEach(async () => {
    await probe?.kill();
    probe = undefined;
  });

  it('holds eight addresses of one /64 to the bounds of one source, and counts the next /64 apart', async () => {
    const unshare = required('unshare', 'util-linux');
    required('ip', 'iproute2');
    const sameNetwork = Array.from({ length: 8 }, (_, index) => `fd00:64::${index + 2}`);
    const request: ProbeRequest = {
      listen: 'fd00:64::1',
      sources: [...sameNetwork, 'fd00:65::2'],
      perSource: 4,
      handshakeBurst: 3,
    };
    const addresses = [request.listen, ...request.sources];
    probe = start(unshare, ['--net', 'bash', '-c', inNamespace, 'in-namespace', ...addresses], {
      env: { PROBE_REQUEST: JSON.stringify(request) },
    });
    const line = await probe.waitFor(/^PROBE /);
    const result = JSON.parse(line.slice('PROBE '.length)) as ProbeResult;
    assert.deepEqual(result, {
      // Counted apart, each address would be held: the /64 may hold 4 in all.
      held: [...Array<string>(4).fill('held'), ...Array<string>(4).fill('refused'), 'held'],
      // Counted apart, each address would have a burst of 3: the /64 has 3 in all.
      handshakes: [...Array<string>(3).fill('handshake'), ...Array<string>(5).fill('refused'), 'handshake'],
    });
    const ended = probe.child.exitCode !== null || probe.child.signalCode !== null;
    const exited = ended ? probe.child.exitCode : ((await once(probe.child, 'exit')) as [number | null])[0];
    assert.equal(exited, 0, 'the probe closed everything it opened and exited by itself');
  });
});

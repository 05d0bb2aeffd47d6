import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { joinedRegExp } from '../support/joined-regexp.ts';
import { createNetworkNamespace } from '../support/network-namespace.ts';
import { runToEnd, start } from '../support/processes.ts';
import { projectRoot } from '../support/usecases.ts';

describe("test support: a network namespace of the test's own, or a failure that says what it needs", function () {
  this.timeout(60_000);

  it('holds an address that is not loopback, which the host does not have, and is gone once removed', async () => {
    const network = await createNetworkNamespace('support');
    let removed = false;
    try {
      const hostAddresses = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
      assert.equal(hostAddresses.includes(network.address), false, 'the host network is not touched');
      const shown = await runToEnd(...network.inside('ip', ['-4', '-o', 'addr', 'show', 'up']), { env: process.env });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`\\bportal0\\s+inet ${network.address.replaceAll('.', '\\.')}/24\\b`));
      assert.match(shown.stdout, /\blo\s+inet 127\.0\.0\.1\/8\b/);
      await network.remove();
      removed = true;
      const listed = await runToEnd('ip', ['netns', 'list'], { env: process.env });
      assert.equal(listed.stdout.includes(network.name), false, listed.stdout);
    } finally {
      if (!removed) await network.remove();
    }
  });

  it('fails, naming root and iproute2, where it cannot be made (as nobody)', async () => {
    // Root runs the attempt as nobody; any other user runs it as itself, and is refused alike.
    const asRoot = process.getuid?.() === 0;
    const attempt = start(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(join(projectRoot, 'test/support/network-namespace.ts'))})` +
          ".then((m) => m.createNetworkNamespace('refused'))" +
          ".then((n) => n.remove().then(() => console.log('MADE')), (e) => console.log('FAILED ' + e.message))",
      ],
      { env: { HOME: '/tmp' }, ...(asRoot ? { user: { uid: 65534, gid: 65534 } } : {}) },
    );
    try {
      const line = await attempt.waitFor(/^(MADE|FAILED)/, 40_000);
      assert.match(
        line,
        joinedRegExp(
          /^FAILED this test needs a network namespace with an address that is not loopback, /,
          /and ip netns add portal-refused-\d+-1 failed \(.+\); /,
          /run it as root \(or with CAP_NET_ADMIN\) on Linux with iproute2 installed/,
        ),
      );
    } finally {
      await attempt.kill();
    }
  });
});

/**
 * A network of the test's own: a fresh network namespace whose only links are loopback and a veth pair,
 * one end holding an address that is not loopback (TEST-NET-1, 192.0.2.0/24, which no network routes).
 * Processes run inside with `ip netns exec`; nothing of the host's network is touched, and the machine
 * needs no address of its own. Making one needs root (CAP_NET_ADMIN) and iproute2: without them the
 * test fails, saying so, rather than skipping what it was written to prove.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NetworkNamespace {
  readonly name: string;
  /** The namespace's own address on its veth link: one another machine would dial, not loopback. */
  readonly address: string;
  /** The command line that runs `command args` inside the namespace. */
  inside(command: string, args: readonly string[]): [string, string[]];
  /** Deletes the namespace (processes still inside keep it alive until they end). */
  remove(): Promise<void>;
}

/** The address the namespace's link holds, and its peer's, both in TEST-NET-1. */
const ownAddress = '192.0.2.1';
const peerAddress = '192.0.2.2';
let made = 0;

/** Makes a namespace named after `label` and this process; fails with what the machine lacks. */
export async function createNetworkNamespace(label: string): Promise<NetworkNamespace> {
  made += 1;
  const name = `portal-${label}-${process.pid}-${made}`;
  const steps = [
    ['netns', 'add', name],
    ['-n', name, 'link', 'set', 'lo', 'up'],
    ['-n', name, 'link', 'add', 'portal0', 'type', 'veth', 'peer', 'name', 'portal1'],
    ['-n', name, 'addr', 'add', `${ownAddress}/24`, 'dev', 'portal0'],
    ['-n', name, 'addr', 'add', `${peerAddress}/24`, 'dev', 'portal1'],
    ['-n', name, 'link', 'set', 'portal0', 'up'],
    ['-n', name, 'link', 'set', 'portal1', 'up'],
  ];
  for (const step of steps) {
    try {
      await run('ip', step, { encoding: 'utf8' });
    } catch (error) {
      await run('ip', ['netns', 'del', name]).catch(() => undefined);
      const said = (error as { stderr?: string; message: string }).stderr?.trim() || (error as Error).message;
      throw new Error(
        `this test needs a network namespace with an address that is not loopback, and ip ${step.join(' ')} ` +
          `failed (${said}); run it as root (or with CAP_NET_ADMIN) on Linux with iproute2 installed ` +
          '(apt-get install iproute2), as npm test does after scripts/test-prerequisites.sh',
        { cause: error },
      );
    }
  }
  return {
    name,
    address: ownAddress,
    inside: (command, args) => ['ip', ['netns', 'exec', name, command, ...args]],
    remove: () => run('ip', ['netns', 'del', name]).then(() => undefined),
  };
}

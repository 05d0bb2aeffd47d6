/** One sshd on loopback and one `ssh -L` session (aes128-gcm) forwarding a local port to each target. */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, listening, start } from './processes.ts';
import { tree } from './proc-stats.ts';

export interface SshTunnel {
  /** The local port that forwards to each target port, in the order given. */
  readonly ports: readonly number[];
  readonly sshPid: number;
  /** sshd and every sshd it forked (the per-connection children), as of now. */
  sshdPids(): number[];
}

export async function startSshTunnel(
  work: string,
  targetPorts: readonly number[],
  openFiles: number,
): Promise<SshTunnel> {
  const sshDir = join(work, 'ssh');
  mkdirSync(sshDir, { mode: 0o700 });
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(sshDir, 'client')]);
  writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(join(sshDir, 'client.pub')));
  chmodSync(join(sshDir, 'authorized_keys'), 0o600);
  const sshdPort = await freePort();
  const config = join(sshDir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${sshdPort}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(sshDir, 'host')}`,
      `AuthorizedKeysFile ${join(sshDir, 'authorized_keys')}`,
      'PermitRootLogin yes',
      'UsePAM no',
      'StrictModes no',
      `PidFile ${join(sshDir, 'sshd.pid')}`,
      'AllowTcpForwarding yes',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  const sshd = await start('/usr/sbin/sshd', ['-D', '-e', '-f', config], { ready: /Server listening/, openFiles });
  const localPorts: number[] = [];
  while (localPorts.length < targetPorts.length) localPorts.push(await freePort());
  const forwards = targetPorts.flatMap((target, index) => ['-L', `127.0.0.1:${localPorts[index]}:127.0.0.1:${target}`]);
  const user = process.env.USER ?? 'root';
  const ssh = await start(
    'ssh',
    [
      '-N',
      '-T',
      '-i',
      join(sshDir, 'client'),
      '-p',
      String(sshdPort),
      '-c',
      'aes128-gcm@openssh.com',
      '-o',
      'StrictHostKeyChecking=no',
      '-o',
      `UserKnownHostsFile=${join(sshDir, 'known_hosts')}`,
      '-o',
      'BatchMode=yes',
      ...forwards,
      `${user}@127.0.0.1`,
    ],
    { openFiles },
  );
  for (const port of localPorts) await listening(port);
  return { ports: localPorts, sshPid: ssh.pid, sshdPids: () => tree(sshd.pid) };
}

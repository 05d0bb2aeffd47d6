/**
 * The control plane stack's boot scripts as a machine receives them (the launch templates' user data after
 * Fn::Sub, with the test values below), and what the sandbox runs them with: stand-ins for aws, a run under
 * the sandbox's root, and the units the systemd stand-in started.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { resolveSub } from './cfn-sub.ts';
import type { Sandbox } from './sandbox.ts';
import { artifactText } from './usecases.ts';

export const arn = (name: string) => `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf`;
export const values = {
  'AWS::StackName': 'postgres-control-plane',
  'AWS::Region': 'us-east-1',
  'AWS::URLSuffix': 'amazonaws.com',
  ControlPlaneLogGroup: 'postgres-control-plane-logs',
  ControllerSealingKeySecret: arn('controller-seal'),
  'ControllerLoadBalancer.DNSName': 'postgres-nlb-0123456789.elb.us-east-1.amazonaws.com',
  InstallUrl: 'https://releases.example.test/install.sh',
  RelayTicketSecret: arn('relay-ticket'),
  RelaySealingKeySecret: arn('relay-seal'),
  RelayFileSystem: 'fs-0123456789abcdef0',
};
export const rds = { DatabaseHost: 'portal.abc123.us-east-1.rds.amazonaws.com', DatabaseSecret: arn('rds-master') };
export const ownDatabase = { DatabaseHost: '', DatabaseSecret: arn('my-database') };
export const sealingKey = 'ControllerSealingKey0123456789abcdefghijklmnopqr';
export const relayKey = 'RelaySealingKey0123456789abcdefghijklmnopqrstuvw';
export const password = 'the-database-password';
export const ticket = 'pt1_relay-ticket_0123';
export const publicAddress = '203.0.113.7';

type LaunchTemplate = { Properties: { LaunchTemplateData: { UserData: { 'Fn::Base64': { 'Fn::Sub': unknown } } } } };

/** The user data of `id` after Fn::Sub, as a machine of the compiled postgres control plane receives it. */
export function bootScript(id: 'ControllerLaunchTemplate' | 'RelayLaunchTemplate', database = rds): string {
  const template = parseCfnYaml(artifactText('postgres', 'control-plane/stack.yaml')) as {
    Resources: Record<string, LaunchTemplate>;
  };
  const sub = template.Resources[id]?.Properties.LaunchTemplateData.UserData['Fn::Base64']['Fn::Sub'];
  return resolveSub(Array.isArray(sub) ? (sub[0] as string) : (sub as string), { ...values, ...database });
}

export function shellcheck(script: string): string {
  const result = spawnSync('shellcheck', ['--severity=warning', '--shell=bash', '--format=gcc', '-'], {
    input: script,
    encoding: 'utf8',
  });
  assert.equal(result.error, undefined, 'shellcheck is installed (Debian package shellcheck; .ci/run installs it)');
  return result.stdout.trim();
}

export const hereDocument = (script: string, marker: string): string => {
  const body = new RegExp(`<<'${marker}'\\n([\\s\\S]*?)\\n${marker}\\n`).exec(script)?.[1];
  assert.ok(body, `the script writes ${marker}`);
  return body;
};

/** An `aws` stand-in whose Secrets Manager holds `secrets` (a file's contents when the value starts with @). */
export function awsStandIn(secrets: Record<string, string>, extra = ''): string {
  const cases = Object.entries(secrets)
    .map(
      ([id, value]) =>
        `    '${id}') ${value.startsWith('@') ? `cat '${value.slice(1)}'` : `printf '%s\\n' '${value}'`} ;;`,
    )
    .join('\n');
  return `${extra}
if [ "$1 $2 $3" = "secretsmanager get-secret-value --secret-id" ]; then
  case "$4" in
${cases}
    *) echo "An error occurred (ResourceNotFoundException): no secret $4" >&2; exit 254 ;;
  esac
fi`;
}

export async function run(sandbox: Sandbox, script: string, environment: Record<string, string> = {}) {
  const path = join(sandbox.dir, 'boot.sh');
  await writeFile(path, script);
  const result = spawnSync('bash', [path], {
    env: { PATH: `${sandbox.bin}:${sandbox.system}`, PORTAL_BOOT_ROOT: sandbox.root, ...environment },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Waits (10 s at most) until a recorded call satisfies `found`. */
export async function waitForCall(sandbox: Sandbox, found: (call: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const call = (await sandbox.calls()).find(found);
    if (call) return call;
    if (Date.now() > deadline) throw new Error(`no such call among:\n${(await sandbox.calls()).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Stops the units the systemd stand-in started (each in a session of its own). */
export async function stopUnits(units: string): Promise<void> {
  const files = await readdir(units).catch(() => [] as string[]);
  for (const file of files.filter((name) => name.endsWith('.pid'))) {
    const pid = Number(await readFile(join(units, file), 'utf8'));
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

export const mode = async (path: string) => (await stat(path)).mode & 0o777;

/**
 * The stacks' boot script as a machine receives it (the launch template's user data after Fn::Sub,
 * with test parameter values), and the sandbox's stand-ins for the machine's name lookups and systemd.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCfnYaml } from '../../src/compile/stack/cfn-yaml.ts';
import { resolveSub } from './cfn-sub.ts';
import type { Sandbox } from './sandbox.ts';
import { artifactText } from './usecases.ts';

interface StackTemplate {
  Parameters: Record<string, { Default?: string }>;
  Resources: {
    NodeLaunchTemplate: { Properties: { LaunchTemplateData: { UserData: { 'Fn::Base64': { 'Fn::Sub': string } } } } };
  };
}

export const fileSystemId = 'fs-0123456789abcdef0';
export const fileSystemHost = `${fileSystemId}.efs.us-east-1.amazonaws.com`;
export const ticket = 'pt1_sandbox-ticket_0123';
export const ticketSecret = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:ticket-AbCdEf';
export const installUrl = 'https://releases.example.test/install.sh';
export const sealingKeySecret = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:sealing-key-GhIjKl';
/** What the stack's generated secret holds: 48 letters and digits. */
export const sealingKeyMaterial = 'SealingKeyMaterial0123456789abcdefghijklmnopqrst';

/**
 * Body of an `aws` stand-in whose Secrets Manager holds the stack's two secrets: the ticket and the
 * sealing key material. Any other call succeeds silently.
 */
export function secretsStandIn(secrets: { ticket?: string; sealingKey?: string } = {}): string {
  return `if [ "$1 $2 $3" = "secretsmanager get-secret-value --secret-id" ]; then
  case "$4" in
    '${ticketSecret}') echo '${secrets.ticket ?? ticket}' ;;
    '${sealingKeySecret}') echo '${secrets.sealingKey ?? sealingKeyMaterial}' ;;
    *) echo "An error occurred (ResourceNotFoundException): no secret $4" >&2; exit 254 ;;
  esac
fi`;
}

/** The boot script as a machine of `usecase`-`role` would receive it: the stack's user data after Fn::Sub. */
export function renderedBootScript(
  usecase: string,
  role: 'outlet' | 'inlet',
  parameters: Record<string, string> = {},
): string {
  return bootScriptOfStack(artifactText(usecase, `${role}.stack.yaml`), `${usecase}-${role}`, parameters);
}

/** The user data of a compiled stack (its YAML text) after Fn::Sub, for the stack `stackName`. */
export function bootScriptOfStack(
  stackYaml: string,
  stackName: string,
  parameters: Record<string, string> = {},
): string {
  const template = parseCfnYaml(stackYaml) as StackTemplate;
  return resolveSub(
    template.Resources.NodeLaunchTemplate.Properties.LaunchTemplateData.UserData['Fn::Base64']['Fn::Sub'],
    {
      'AWS::StackName': stackName,
      'AWS::Region': 'us-east-1',
      'AWS::URLSuffix': 'amazonaws.com',
      StateFileSystem: fileSystemId,
      StatusLogGroup: `${stackName}-status-logs`,
      EnrollmentTicketSecret: ticketSecret,
      SealingKeySecret: sealingKeySecret,
      InstallUrl: installUrl,
      JSONNodeConfig: String(template.Parameters.JSONNodeConfig?.Default),
      ...parameters,
    },
  );
}

/**
 * Body of a `systemctl` stand-in for the sandbox. `enable --now UNIT…` starts each unit as systemd
 * would: its EnvironmentFile's variables and nothing else of the caller's environment, its
 * ExecStartPre command first (the unit does not start if it fails), then its ExecStart command line,
 * in a session of its own, output to `<logs>/<unit>.log`, pid to `<logs>/<unit>.pid`.
 * Paths of the machine (/etc, /var, /usr/local, /root, /opt, /run) are read under the sandbox root,
 * which is what a chroot would do. Restart= is not emulated: a unit that dies stays dead.
 */
export function systemdStandIn(logs: string): string {
  return (
    `
translate() { case "$1" in /etc/* | /var/* | /usr/local/* | /root/* | /opt/* | /run/*) ` +
    `printf '%s' "$PORTAL_BOOT_ROOT$1" ;; *) printf '%s' "$1" ;; esac; }
[ "$1" = enable ] || exit 0
shift
[ "$1" = --now ] && shift
for unit in "$@"; do
  file="$PORTAL_BOOT_ROOT/etc/systemd/system/$unit"
  environment=()
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    value=\${line#*=}; value=\${value#\\'}; value=\${value%\\'}
    environment+=("\${line%%=*}=$(translate "$value")")
  done < "$(translate "$(sed -n 's/^EnvironmentFile=//p' "$file")")"
  before=()
  for word in $(sed -n 's/^ExecStartPre=//p' "$file"); do before+=("$(translate "$word")"); done
  if [ \${#before[@]} -gt 0 ] && ! env -i PATH="$PATH" "\${environment[@]}" "\${before[@]}" ` +
    `>> '${logs}'/"$unit.log" 2>&1 < /dev/null; then
    echo "$unit: ExecStartPre failed" >> '${logs}'/"$unit.log"
    continue
  fi
  command=()
  for word in $(sed -n 's/^ExecStart=//p' "$file"); do command+=("$(translate "$word")"); done
  setsid env -i PATH="$PATH" "\${environment[@]}" "\${command[@]}" >> '${logs}'/"$unit.log" 2>&1 < /dev/null &
  echo $! > '${logs}'/"$unit.pid"
done
`
  );
}

/**
 * A `getent` stand-in: name lookups fail `failures` times, as while the file system's name propagates, then
 * succeed.
 */
export async function stubNameLookups(sandbox: Sandbox, failures: number): Promise<void> {
  const counter = join(sandbox.dir, 'lookups');
  await writeFile(counter, '0');
  await sandbox.stub(
    'getent',
    `n=$(cat '${counter}'); echo $((n + 1)) > '${counter}'; [ "$n" -ge ${failures} ] || exit 2; echo "10.0.0.5 $2"`,
    'sh',
  );
}

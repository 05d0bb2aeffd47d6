/**
 * A unit's ExecStart run under the unit's own sandbox, as far as a machine without systemd as PID 1 can
 * apply it: in a mount namespace of its own (unshare --mount, as root; nothing outside it changes),
 * ProtectHome=yes leaves /home, /root and /run/user empty and closed, PrivateTmp=yes gives an empty /tmp
 * and /var/tmp, ProtectSystem=strict makes / read-only, StateDirectory= makes the home under /var/lib and
 * LoadCredential= copies each file into /run/credentials/<unit>; then setpriv drops to nobody with no
 * capabilities and no new privileges, as User=, CapabilityBoundingSet= and NoNewPrivileges= do.
 *
 * The paths each directive hides are written here from systemd.exec(5), not taken from Portal's source,
 * so a test that runs here checks Portal's idea of the sandbox against systemd's. /run and /var/lib are
 * fresh here (systemd keeps the host's): the process sees less than under systemd, never more.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { basename } from 'node:path';
import { parseUnit } from './systemd-unit-file.ts';
import { start, type Running } from './processes.ts';

/** What systemd.exec(5) says each directive hides. */
const hides: Record<string, readonly string[]> = {
  'ProtectHome=yes': ['/home', '/root', '/run/user'],
  'PrivateTmp=yes': ['/tmp', '/var/tmp'],
};

/** The user the service runs as here: the unit's User= does not exist on a test machine. */
const nobody = 65534;
/** systemd's PATH for services. */
const servicePath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export interface SandboxOptions {
  /** Replaces ExecStart's first words (Node.js and the script): a program the unit could name instead. */
  readonly program?: readonly string[];
  /** Shell lines run as root in the namespace before the sandbox applies, such as a checkout under /home. */
  readonly prepare?: string;
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The full path of `command`; throws, naming its Debian package, when it is missing. */
export function required(command: string, debianPackage: string): string {
  const found = spawnSync('bash', ['-c', `command -v '${command}'`], { encoding: 'utf8' }).stdout.trim();
  if (!found.startsWith('/'))
    throw new Error(
      `${command} is missing: this test applies a unit's sandbox with it; ` +
        `install the Debian package ${debianPackage} (as root: apt-get install ${debianPackage})`,
    );
  return found;
}

/**
 * Runs `script` (sh, with `args` as $1…) as root in a mount namespace of its own, where it may mount
 * tmpfs over /srv or /home to lay out files without touching the machine's.
 */
export function inMountNamespace(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
  return spawnSync(
    required('unshare', 'util-linux'),
    ['--mount', '--propagation', 'private', 'sh', '-c', `set -eu\n${script}`, 'in-namespace', ...args],
    { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 },
  );
}

/** Starts the unit at `unitPath` in its sandbox; the process it runs is the unit's program itself. */
export async function startInUnitSandbox(unitPath: string, options: SandboxOptions = {}): Promise<Running> {
  const credentials = `/run/credentials/${basename(unitPath)}`;
  const unit = await parseUnit(unitPath, credentials);
  const setting = (name: string) => unit.settings.get(name) ?? [];
  const has = (directive: string) =>
    setting(directive.split('=')[0] as string).includes(directive.split('=')[1] as string);
  if (!setting('CapabilityBoundingSet').includes(''))
    throw new Error('this sandbox applies CapabilityBoundingSet= (none) only: give the unit a port above 1023');
  const lines = [
    'set -eu',
    options.prepare ?? '',
    'mount -t tmpfs -o mode=0755 unit-run /run',
    `mkdir -p ${quote(credentials)}`,
  ];
  // Read as root before anything is hidden, as systemd does, and readable by the service alone.
  for (const { id, path } of unit.credentials) lines.push(`cp ${quote(path)} ${quote(`${credentials}/${id}`)}`);
  lines.push(`chown -R ${nobody}:${nobody} ${quote(credentials)}`, `chmod -R u=rX,go= ${quote(credentials)}`);
  const state = setting('StateDirectory')[0];
  if (state !== undefined)
    lines.push(
      'mount -t tmpfs -o mode=0755 unit-state /var/lib',
      `install -d -o ${nobody} -g ${nobody} -m 0700 ${quote(`/var/lib/${state}`)}`,
    );
  if (has('ProtectHome=yes')) lines.push('mkdir -p /run/user');
  for (const [directive, paths] of Object.entries(hides)) {
    if (!has(directive)) continue;
    const mode = directive === 'PrivateTmp=yes' ? '1777' : '000';
    for (const path of paths) lines.push(`mount -t tmpfs -o mode=${mode} unit-hidden ${path}`);
  }
  if (has('ProtectSystem=strict')) lines.push('mount -o remount,bind,ro /');
  const user = [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', '--bounding-set=-all'];
  if (has('NoNewPrivileges=yes')) user.push('--no-new-privs');
  lines.push('cd /', `exec ${required('setpriv', 'util-linux')} ${user.join(' ')} -- "$@"`);
  const words = options.program ? [...options.program, ...unit.execStart.slice(2)] : unit.execStart;
  return start(
    required('unshare', 'util-linux'),
    ['--mount', '--propagation', 'private', 'sh', '-c', lines.join('\n'), 'unit-sandbox', ...words],
    {
      isolated: true,
      env: { PATH: servicePath, ...unit.environment, CREDENTIALS_DIRECTORY: credentials },
    },
  );
}

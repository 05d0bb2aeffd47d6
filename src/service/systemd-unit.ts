/**
 * systemd units for Portal's long-running processes (a node, a relay, a controller), as typed data
 * rendered last. Pure: `portal service install` (src/cli/service.ts) decides what goes in and writes the
 * file. Each unit runs one foreground command as a dedicated user, with PORTAL_HOME in a state
 * directory, the hardening a network daemon that only needs its own state can take, secrets (the
 * controller's sealing key, an enrollment ticket) as credentials that systemd reads as root and hands
 * to the process alone, and a stop timeout above the time Portal drains its connections.
 */
import { formatDuration } from '../shared/duration.ts';
import { stopWaitMs } from '../shared/stop-wait.ts';

export type ServiceRole = 'node' | 'relay' | 'controller';

/** A credential the unit loads (`LoadCredential=ID:PATH`); the process reads it at `%d/ID`. */
export interface Credential {
  readonly id: string;
  /** Absolute path of the file systemd reads (as root) when the service starts. */
  readonly path: string;
}

/** A word of ExecStart or an Environment value: literal text, or the path of a credential (`%d/ID`). */
export type Word = string | { readonly credential: string };

export interface ServiceUnit {
  readonly role: ServiceRole;
  /** The unit's name without `.service`, such as "portal-node". */
  readonly name: string;
  /** The dedicated user it runs as. */
  readonly user: string;
  /** PORTAL_HOME: the process's state, the only place it may write. */
  readonly home: string;
  /** The program: Node.js and the portal script, absolute paths. */
  readonly program: readonly string[];
  /** The arguments after the program: the foreground command. */
  readonly arguments: readonly Word[];
  /**
   * A node's: the arguments of the command `systemctl reload` runs (ExecReload=), as root, so that it
   * reads the configuration's source file, which the credential copied only at start.
   */
  readonly reload?: readonly Word[];
  readonly credentials: readonly Credential[];
  /** Environment besides PORTAL_HOME, in the order given. */
  readonly environment: readonly (readonly [string, Word])[];
  /** How long the process drains its connections when it stops: PORTAL_DRAIN_TIMEOUT in its environment. */
  readonly drainMs: number;
  /** Listens on a port below 1024: granted CAP_NET_BIND_SERVICE, and nothing else. */
  readonly privilegedPort: boolean;
  /** Written into the unit's first comment. */
  readonly portalVersion: string;
}

/**
 * Seconds systemd waits after SIGTERM before it kills the process: above the time it drains
 * connections on the first SIGTERM, so a stop is never a kill.
 */
export const stopTimeoutSeconds = (drainMs: number): number => Math.ceil(stopWaitMs(drainMs) / 1000);

/**
 * The exit code of a refusal (bad configuration, a used ticket): starting again would be refused
 * again, so systemd does not restart the process.
 */
export const inputErrorExitCode = 2;
/** Open files: a relay or an outlet holds two descriptors for every connection it carries. */
export const openFilesLimit = 65536;
/** Where StateDirectory= puts a relative state directory. */
export const stateRoot = '/var/lib/';

/**
 * What each of the unit's directives hides from the process: a program, its Node.js or its home there
 * cannot be reached when the unit starts.
 */
export const sandboxHides = [
  { directive: 'ProtectHome=yes', paths: ['/home', '/root', '/run/user'] },
  { directive: 'PrivateTmp=yes', paths: ['/tmp', '/var/tmp'] },
] as const;

/** The directive that hides `path` (absolute, links resolved) from the service, and the directory it hides. */
export function hiddenBy(path: string): { readonly directive: string; readonly under: string } | undefined {
  for (const { directive, paths } of sandboxHides) {
    const under = paths.find((hidden) => path === hidden || path.startsWith(`${hidden}/`));
    if (under) return { directive, under };
  }
  return undefined;
}

const descriptions: Record<ServiceRole, string> = {
  node: 'Portal node (inlet or outlet)',
  relay: 'Portal relay',
  controller: 'Portal controller',
};

/** The unit file's text. */
export function renderUnit(unit: ServiceUnit): string {
  const lines: string[] = [
    `# ${unit.name}.service: ${descriptions[unit.role]}, ` +
      `written by portal service install ${unit.role} (Portal ${unit.portalVersion}).`,
    `# Its log is in the journal: journalctl -u ${unit.name}. See docs/operating.md in Portal's repository.`,
    '',
    '[Unit]',
    `Description=${descriptions[unit.role]}`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=exec',
    `User=${unit.user}`,
    `Environment=${environmentValue('PORTAL_HOME', unit.home)}`,
    ...unit.environment.map(([name, value]) => `Environment=${environmentValue(name, value)}`),
    ...unit.credentials.map((credential) => `LoadCredential=${credential.id}:${escapeSpecifiers(credential.path)}`),
    `ExecStart=${[...unit.program, ...unit.arguments].map(execWord).join(' ')}`,
    ...(unit.reload
      ? [
          '# systemctl reload: root (+) reads the source file again, since LoadCredential= copied it at start only,',
          '# hands it to the node through its home, and waits for the node to apply it or refuse it.',
          `ExecReload=+${[...unit.program, ...unit.reload].map(execWord).join(' ')}`,
        ]
      : []),
    'Restart=on-failure',
    'RestartSec=5s',
    `# Exit code ${inputErrorExitCode} is a refusal (bad configuration, a used ticket): ` +
      'a restart would be refused too.',
    `RestartPreventExitStatus=${inputErrorExitCode}`,
    `# ${drainComment(unit.drainMs)}`,
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${stopTimeoutSeconds(unit.drainMs)}s`,
    `LimitNOFILE=${openFilesLimit}`,
    'UMask=0077',
    ...stateDirectory(unit.home),
    `ReadWritePaths=${escapeSpecifiers(unit.home)}`,
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    ...sandboxHides.map(({ directive }) => directive),
    'PrivateDevices=yes',
    'ProtectKernelTunables=yes',
    'ProtectKernelModules=yes',
    'ProtectKernelLogs=yes',
    'ProtectControlGroups=yes',
    'ProtectClock=yes',
    'ProtectHostname=yes',
    'RestrictSUIDSGID=yes',
    'RestrictRealtime=yes',
    'RestrictNamespaces=yes',
    'LockPersonality=yes',
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK',
    'SystemCallArchitectures=native',
    ...(unit.privilegedPort
      ? ['CapabilityBoundingSet=CAP_NET_BIND_SERVICE', 'AmbientCapabilities=CAP_NET_BIND_SERVICE']
      : ['CapabilityBoundingSet=']),
    '',
    '[Install]',
    'WantedBy=multi-user.target',
  ];
  return `${lines.join('\n')}\n`;
}

/** What the process does on SIGTERM, for the comment above TimeoutStopSec=. */
function drainComment(drainMs: number): string {
  const drain =
    drainMs === 0
      ? 'closes its connections at once after SIGTERM'
      : `drains its connections after the first SIGTERM for up to ${formatDuration(drainMs)}`;
  return `Portal ${drain} (PORTAL_DRAIN_TIMEOUT), then exits.`;
}

/** StateDirectory= makes the home (owned by the user, 0700) when it lies under /var/lib. */
function stateDirectory(home: string): string[] {
  if (!home.startsWith(stateRoot) || home.length <= stateRoot.length) return [];
  return [`StateDirectory=${escapeSpecifiers(home.slice(stateRoot.length))}`, 'StateDirectoryMode=0700'];
}

const render = (word: Word, escape: (text: string) => string) =>
  typeof word === 'string' ? escape(word) : `%d/${word.credential}`;

/** `%` starts a specifier in every unit setting: a literal one is written twice. */
function escapeSpecifiers(text: string): string {
  return text.replace(/%/g, '%%');
}

/**
 * One word of ExecStart: specifiers and variables ($) escaped, and double-quoted with C escapes when it
 * holds whitespace, quotes or backslashes (systemd.service(5), "Command lines").
 */
function execWord(word: Word): string {
  return render(word, (text) => {
    const escaped = escapeSpecifiers(text).replace(/\$/g, '$$$$');
    if (escaped !== '' && !/[\s"'\\;]/.test(escaped)) return escaped;
    return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
}

/** NAME=value for Environment=, quoted when the value holds whitespace or quotes. */
function environmentValue(name: string, value: Word): string {
  const text = `${name}=${render(value, escapeSpecifiers)}`;
  return /[\s"'\\]/.test(text) ? `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : text;
}

/** Control characters (a newline would start a new setting) have no place in a unit file. */
export function hasControlCharacters(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(text);
}

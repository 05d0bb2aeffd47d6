/**
 * A compiled compose inlet, taken as `docker-compose up -d` would take it: the README's own command
 * line run with `config` in place of `up -d`, so that Debian's docker-compose itself interpolates the
 * ticket from inlet.ticket, and the `node` service it resolves.
 */
import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { artifactText, projectRoot } from './usecases.ts';

const execFileAsync = promisify(execFile);

export interface ComposeService {
  readonly image: string;
  readonly container_name: string;
  readonly network_mode: string;
  readonly command: string[];
  readonly environment: Record<string, string>;
  readonly volumes?: string[];
}

/**
 * The README line that starts the container inlet, e.g.
 * `ENROLLMENT_TICKET="$(cat inlet.ticket)" docker-compose -f inlet.compose.yaml up -d`.
 */
export function composeUpLine(usecase: string): string {
  const line = artifactText(usecase, 'README.md')
    .split('\n')
    .find((candidate) => /docker-compose -f inlet\.compose\.yaml up -d$/.test(candidate));
  if (!line) throw new Error(`the ${usecase} README has no docker-compose up line`);
  return line;
}

/**
 * Runs the README's line (or `upLine`, another document's), as `config`, in `dir` (which holds
 * inlet.ticket, as the administrator's folder does) and returns the resolved `node` service.
 */
export async function resolvedNodeService(
  usecase: string,
  dir: string,
  upLine = composeUpLine(usecase),
): Promise<ComposeService> {
  await copyFile(join(projectRoot, 'out', usecase, 'inlet.compose.yaml'), join(dir, 'inlet.compose.yaml'));
  if (!/ up -d$/.test(upLine)) throw new Error(`${upLine} does not end with up -d`);
  const line = upLine.replace(/ up -d$/, ' config');
  const { stdout } = await execFileAsync('bash', ['-c', line], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
  });
  const service = (parse(stdout) as { services: Record<string, ComposeService> }).services.node;
  if (!service) throw new Error(`docker-compose resolved no node service for ${usecase}:\n${stdout}`);
  return service;
}

/**
 * The one change a test machine needs: the node configuration's fixed ports (the inlet's `from` and
 * `http-server-port`) become 0, edited in the text so that everything else stays as resolved.
 */
export function onFreePortsInCommand(command: readonly string[]): string[] {
  const at = command.findIndex((argument) => argument === '--configuration' || argument === '--node-config') + 1;
  const document = command[at];
  if (at === 0 || document === undefined) throw new Error(`no configuration in ${command.join(' ')}`);
  let edits = 0;
  const edited = document
    .replace(/^(\s+from: [^\s:]+:)\d+$/m, (_, prefix: string) => (edits++, `${prefix}0`))
    .replace(/^http-server-port: \d+$/m, () => (edits++, 'http-server-port: 0'));
  if (edits !== 2) throw new Error(`expected a from port and an http-server-port in:\n${document}`);
  return command.map((argument, index) => (index === at ? edited : argument));
}

/**
 * The program a service unit runs: Node.js and the portal script, with every link resolved, refused when
 * the unit's own sandbox would hide it (ProtectHome=yes hides /home, PrivateTmp=yes gives a fresh /tmp), and
 * a warning when the service's dedicated user could not read it.
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InputError, RuntimeFailure } from '../shared/errors.ts';
import { hiddenBy } from '../service/systemd-unit.ts';

/** Where the running command comes from, as Node.js reports it. */
export interface ProgramSource {
  /** `process.execPath` */
  readonly node: string;
  /** `process.execArgv` */
  readonly nodeArguments: readonly string[];
  /** `process.argv[1]`, which Node.js leaves as given: often a link such as /usr/local/bin/portal. */
  readonly script: string | undefined;
}

const portalFix =
  'install Portal where the service can reach it (PORTAL_HOME=/opt/portal sh install.sh, or unpack a release ' +
  'made by npm run release, or copy it under /opt or /usr/local) and run portal service install from there';
const nodeFix =
  'install Node.js where the service can reach it (a distribution package in /usr, or the nodejs.org tarball ' +
  'under /usr/local) and run portal service install with that Node.js';

/**
 * Node.js, its arguments and the script, as the files themselves: a unit that ran a link would follow it at
 * every start, into a checkout under /home or /tmp that its sandbox hides. Refuses either file when it lies
 * there.
 */
export async function unitProgram(source: ProgramSource): Promise<string[]> {
  if (!source.script)
    throw new RuntimeFailure('PROGRAM_UNKNOWN', 'cannot tell which portal program runs this command', {
      hint: 'run portal by its path',
    });
  const node = await located(source.node);
  const script = await located(resolve(source.script));
  refuseHidden('Node.js', source.node, node, nodeFix);
  refuseHidden('the portal program', resolve(source.script), script, portalFix);
  return [node, ...source.nodeArguments, script];
}

async function located(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    throw new RuntimeFailure(
      'PROGRAM_UNKNOWN',
      `cannot resolve ${path}, the program this command runs from (${(error as NodeJS.ErrnoException).code})`,
      { hint: 'run portal by its path' },
    );
  }
}

function refuseHidden(what: string, given: string, path: string, fix: string): void {
  const hidden = hiddenBy(path);
  if (!hidden) return;
  const via = given === path ? '' : ` (where ${given} leads)`;
  throw new InputError(
    'PROGRAM_HIDDEN',
    `the unit would run ${what} at ${path}${via}, but its ${hidden.directive} hides ${hidden.under} from the service`,
    { hint: fix },
  );
}

/** Warnings (none when all is well) about the first and the last word of `program`: Node.js and the script. */
export async function programReadableByAll(program: readonly string[], user: string): Promise<string[]> {
  const files = [program[0], program.at(-1)].filter((path): path is string => path !== undefined);
  const warnings: string[] = [];
  for (const file of new Set(files)) {
    const problem = await unreadable(file);
    if (problem)
      warnings.push(
        `the service cannot run ${file} as ${user}: ${problem}; install Node.js and Portal where every user can read ` +
          'them (PORTAL_HOME=/opt/portal sh install.sh, then chmod 755 /opt/portal), and run this again from there',
      );
  }
  return warnings;
}

async function unreadable(file: string): Promise<string | undefined> {
  const mode = await stat(file).then(
    (found) => found.mode,
    () => undefined,
  );
  if (mode === undefined) return 'it does not exist';
  if ((mode & 0o004) === 0)
    return `it is mode ${(mode & 0o777).toString(8).padStart(4, '0')}, which others may not read`;
  for (let directory = dirname(file); ; directory = dirname(directory)) {
    const directoryMode = await stat(directory).then(
      (found) => found.mode,
      () => 0,
    );
    if ((directoryMode & 0o001) === 0)
      return `${directory} is mode ${(directoryMode & 0o777).toString(8).padStart(4, '0')}, which others may not enter`;
    if (directory === dirname(directory)) return undefined;
  }
}

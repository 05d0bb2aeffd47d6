/**
 * Whether a service's dedicated user can run the program a unit names: the unit hides /home, /root and
 * /run/user (ProtectHome=yes), and the user is neither the owner nor in the group of what it reads.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';

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
  if (/^\/(home|root|run\/user)(\/|$)/.test(file)) return 'it lies where ProtectHome=yes hides it';
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

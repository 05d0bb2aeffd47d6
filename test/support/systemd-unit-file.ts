/**
 * A unit file read as systemd reads it, for tests that run what `portal service install` wrote: the
 * [Service] settings, ExecStart split into its words, Environment= and LoadCredential=.
 */
import { readFile } from 'node:fs/promises';

export interface ParsedUnit {
  readonly execStart: string[];
  readonly environment: Record<string, string>;
  readonly credentials: { id: string; path: string }[];
  readonly settings: Map<string, string[]>;
}

/** One value as systemd reads it: quotes and C escapes, %% and $$, and %d for the credentials directory. */
function unescape(text: string, credentials: string): string {
  return text.replace(/%%|%d|\$\$|\\(.)/g, (match, escaped: string | undefined) =>
    match === '%%' ? '%' : match === '%d' ? credentials : match === '$$' ? '$' : (escaped ?? ''),
  );
}

/** A command line of the unit (ExecStart=, ExecReload=) split into its words as systemd splits it. */
export function words(line: string, credentials: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((match) =>
    unescape(match[1] ?? match[2] ?? '', credentials),
  );
}

/** The unit at `path`, with %d standing for `credentials`, the directory its credentials are copied to. */
export async function parseUnit(path: string, credentials: string): Promise<ParsedUnit> {
  const settings = new Map<string, string[]>();
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match) settings.set(match[1] as string, [...(settings.get(match[1] as string) ?? []), match[2] as string]);
  }
  const environment: Record<string, string> = {};
  for (const value of settings.get('Environment') ?? []) {
    const [assignment = ''] = words(value, credentials);
    environment[assignment.slice(0, assignment.indexOf('='))] = assignment.slice(assignment.indexOf('=') + 1);
  }
  const credentialsOf = (settings.get('LoadCredential') ?? []).map((value) => ({
    id: value.slice(0, value.indexOf(':')),
    path: unescape(value.slice(value.indexOf(':') + 1), credentials),
  }));
  return {
    execStart: words(settings.get('ExecStart')?.[0] ?? '', credentials),
    environment,
    credentials: credentialsOf,
    settings,
  };
}

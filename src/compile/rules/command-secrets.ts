/**
 * A command verification runs from tickets.sh and is printed in the guide, word for word: a password
 * written into it would sit in both files, in every copy of them, and in the version control that
 * keeps them. Words that carry one are refused, each at its JSON pointer, with the two ways that keep
 * it out: {env:NAME}, which the check reads from the environment when it runs, or the client's own
 * variable (MYSQL_PWD, REDISCLI_AUTH, PGPASSWORD), which also keeps it out of the process list.
 * Pure: the words in, the indexes of the words that hold a secret out.
 */

/** `{env:NAME}`: the value of the environment variable NAME when the check runs. */
export const envPlaceholder = /\{env:([A-Z_][A-Z0-9_]*)\}/g;

/** Variables the generated scripts set themselves, which a check may not take over. */
export const reservedVariables: ReadonlySet<string> = new Set([
  'INLET_HOST',
  'INLET_PORT',
  'INLET_NAME',
  'PROJECT_CA',
  'PROJECT_ID',
  'NETWORK_DOMAIN',
  'OUTPUT',
  'STATUS',
  'COMMAND',
  'PATH',
  'HOME',
  'IFS',
]);

/**
 * Flag and variable names that say their value is a secret (auth alone: --auth-method names a method,
 * not a secret).
 */
const secretName = /pass|pwd|secret|token|api[-_]?key|credential|^auth$/i;

/** Clients whose short flag takes the password: mysql -pSECRET, redis-cli -a SECRET. */
const passwordShortFlags: Readonly<Record<string, string>> = {
  mysql: '-p',
  mariadb: '-p',
  mysqladmin: '-p',
  'redis-cli': '-a',
};

/** Text that is only placeholders of values given at run time (or nothing), which carries no secret. */
const onlyPlaceholders = (text: string): boolean => text.replace(envPlaceholder, '').replace(/\{[a-z]+\}/g, '') === '';

/** Why `words[index]` carries a secret, or undefined. */
export function secretInWord(words: readonly string[], index: number): string | undefined {
  const word = words[index] as string;
  const program = (words[0] ?? '').split('/').at(-1) ?? '';
  const flagValue = /^--?([A-Za-z][A-Za-z0-9_-]*)=(.*)$/s.exec(word);
  if (flagValue && secretName.test(flagValue[1] as string) && !onlyPlaceholders(flagValue[2] as string))
    return `the value of ${flagValue[1]}`;
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
  if (assignment && secretName.test(assignment[1] as string) && !onlyPlaceholders(assignment[2] as string))
    return `the value of ${assignment[1]}`;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]+@/i.test(word) && !/:\/\/[^/@]*:\{env:[A-Z_0-9]+\}@/.test(word))
    return 'the password in the address';
  if (/^\s*(authorization|proxy-authorization|cookie|x-api-key)\s*:/i.test(word)) {
    const value = word.slice(word.indexOf(':') + 1).replace(/^\s*(basic|bearer|token)\s+/i, '');
    if (!onlyPlaceholders(value.trim())) return `the value of the ${word.slice(0, word.indexOf(':')).trim()} header`;
  }
  const short = passwordShortFlags[program];
  if (short && index > 0) {
    if (word.startsWith(short) && word.length > short.length && !onlyPlaceholders(word.slice(short.length)))
      return `the password of ${program} ${short}`;
    // -a SECRET: the word after the flag (mysql's -p takes no separate word: it would prompt).
    if (short === '-a' && words[index - 1] === short && !onlyPlaceholders(word)) return `the password of ${program} -a`;
  }
  const previous = index > 1 ? /^--?([A-Za-z][A-Za-z0-9_-]*)$/.exec(words[index - 1] as string) : null;
  if (previous && secretName.test(previous[1] as string) && !word.startsWith('-') && !onlyPlaceholders(word))
    return `the value of ${previous[1]}`;
  return undefined;
}

/** The hint every refusal carries: how to give the secret without writing it down. */
export const secretHint =
  'write {env:NAME} in its place and set NAME where the check runs (it is read then, never written into a ' +
  'file), or leave it out and let the client read its own variable (MYSQL_PWD for mysql and mariadb, ' +
  'REDISCLI_AUTH for redis-cli, PGPASSWORD for psql), which also keeps it out of the process list';

/**
 * The commands an administrator runs before applying a node's file: the node's two Secrets, which the
 * file names but does not hold (applying it again must never blank them). The key is made by openssl
 * and piped to kubectl, so it is neither in a file nor on a command line. As words, for the guide's
 * quoting helpers, and as shell lines, for the file's header. Pure.
 */
import { shellQuote } from '../quote.ts';
import { objectNames, secretKeys, type NodeRole } from './names.ts';

/** The ticket file tickets.sh writes for a role. */
export const ticketFile = (role: NodeRole): string => `${role}.ticket`;

export interface SecretCommandWords {
  readonly ticket: readonly string[];
  /** `generate | store`. */
  readonly sealingKey: { readonly generate: readonly string[]; readonly store: readonly string[] };
}

export function secretCommandWords(usecase: string, role: NodeRole): SecretCommandWords {
  const names = objectNames(usecase, role);
  const secret = (name: string, file: string) => [
    'kubectl',
    'create',
    'secret',
    'generic',
    name,
    `--from-file=${file}`,
  ];
  return {
    ticket: secret(names.ticketSecret, `${secretKeys.ticket}=${ticketFile(role)}`),
    sealingKey: {
      generate: ['openssl', 'rand', '-base64', '32'],
      store: secret(names.sealingKeySecret, `${secretKeys.sealingKey}=/dev/stdin`),
    },
  };
}

export function secretCommands(usecase: string, role: NodeRole): { ticket: string; sealingKey: string } {
  const words = secretCommandWords(usecase, role);
  const line = (command: readonly string[]) => command.map(shellQuote).join(' ');
  return {
    ticket: line(words.ticket),
    sealingKey: `${line(words.sealingKey.generate)} | ${line(words.sealingKey.store)}`,
  };
}

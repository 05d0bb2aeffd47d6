/**
 * The commands an administrator runs before applying a node's file: the node's two Secrets, which the
 * file names but does not hold (applying it again must never blank them). The key is made by openssl
 * and piped to kubectl, so it is neither in a file nor on a command line. Pure.
 */
import { shellQuote } from '../quote.ts';
import { objectNames, secretKeys, type NodeRole } from './names.ts';

/** The ticket file tickets.sh writes for a role. */
export const ticketFile = (role: NodeRole): string => `${role}.ticket`;

export function secretCommands(usecase: string, role: NodeRole): { ticket: string; sealingKey: string } {
  const names = objectNames(usecase, role);
  return {
    ticket:
      `kubectl create secret generic ${shellQuote(names.ticketSecret)} ` +
      `--from-file=${shellQuote(`${secretKeys.ticket}=${ticketFile(role)}`)}`,
    sealingKey:
      `openssl rand -base64 32 | kubectl create secret generic ${shellQuote(names.sealingKeySecret)} ` +
      `--from-file=${shellQuote(`${secretKeys.sealingKey}=/dev/stdin`)}`,
  };
}

/**
 * Listening where the user said: an address that is taken is the usual failure, and earns words and a
 * hint that say what to change, rather than the system's bare error code.
 */
import type { Server } from 'node:net';
import { RuntimeFailure } from './errors.ts';

export interface ListenOptions {
  /** The host to bind, as sockets take it (an IPv6 address without brackets). */
  readonly host: string;
  /** 0 lets the system choose. */
  readonly port: number;
  /** What listens, as the message begins: "the inlet", "the status server". */
  readonly subject: string;
  /** The address as the message names it: as the user wrote it. */
  readonly address: string;
  /** How the message words an address in use. @default "the address is in use" */
  readonly inUse?: string;
  /** What the user may do about it. */
  readonly hint: string;
}

/** Listens; rejects with ADDRESS_IN_USE, "<subject> cannot listen on <address>: <why>" and the hint. */
export function listenOrExplain(server: Server, options: ListenOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? (options.inUse ?? 'the address is in use') : error.message;
      reject(
        new RuntimeFailure('ADDRESS_IN_USE', `${options.subject} cannot listen on ${options.address}: ${why}`, {
          hint: options.hint,
          cause: error,
        }),
      );
    });
    server.listen(options.port, options.host, () => resolve());
  });
}

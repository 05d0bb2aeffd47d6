/**
 * Parallel transfers through a portal that something cuts short (a relay killed), and what each
 * client saw at the end: all its bytes with an end of stream, a reset, or (the defect these tests
 * look for) an end of stream with bytes missing, which a client reading to the end takes for a whole
 * answer. The clients are test/support/cut-clients.py (see there why they are not Node.js sockets);
 * the target should be startStoreEchoServer(clients), so that every client has sent everything before
 * the cut.
 */
import { join } from 'node:path';
import { start } from './processes.ts';
import { projectRoot } from './usecases.ts';

export interface TransferOutcome {
  /** The order in which the client connected (0 first). */
  readonly index: number;
  /** Bytes that came back, of `bytes`. */
  readonly received: number;
  /** All bytes came back, and their sha256 equals that of what was sent. */
  readonly intact: boolean;
  /** How reading ended: the peer's FIN (eof), an error, no end within 120 s, or a failed send. */
  readonly end: 'eof' | 'error' | 'timeout' | 'send-error';
  /** The error's code (ECONNRESET for a reset). */
  readonly error: string | null;
}

/**
 * whole: every byte, then the end; reset: ECONNRESET; truncated: an end of stream with bytes missing; other:
 * anything else.
 */
export type OutcomeKind = 'whole' | 'reset' | 'truncated' | 'other';

export function kindOf(outcome: TransferOutcome): OutcomeKind {
  if (outcome.end === 'eof') return outcome.intact ? 'whole' : 'truncated';
  if (outcome.end === 'error' && outcome.error === 'ECONNRESET' && !outcome.intact) return 'reset';
  return 'other';
}

export interface CutTransfers {
  readonly outcomes: readonly (TransferOutcome & { readonly kind: OutcomeKind })[];
  /** Bytes received by all clients together when the cut began. */
  readonly cutAt: number;
  readonly seconds: number;
}

export interface CutTransferOptions {
  readonly clients: number;
  /** Bytes each client sends, and expects back. */
  readonly bytes: number;
  /** The cut comes once every client has sent everything and this many bytes have come back in all. */
  readonly cutAfter: number;
  readonly cut: () => Promise<void>;
}

/** Runs the clients against `port`, cuts, and waits for every client's end. */
export async function cutTransfers(port: number, options: CutTransferOptions): Promise<CutTransfers> {
  const clients = start('python3', [
    join(projectRoot, 'test/support/cut-clients.py'),
    String(port),
    String(options.clients),
    String(options.bytes),
    String(options.cutAfter),
  ]);
  try {
    const cutLine = await clients.waitFor(/"event": "cut"/, 120_000);
    await options.cut();
    const doneLine = await clients.waitFor(/"event": "done"/, 180_000);
    const done = JSON.parse(doneLine) as { seconds: number; outcomes: TransferOutcome[] };
    return {
      outcomes: done.outcomes.map((outcome) => ({ ...outcome, kind: kindOf(outcome) })),
      cutAt: (JSON.parse(cutLine) as { received: number }).received,
      seconds: done.seconds,
    };
  } finally {
    await clients.stop();
  }
}

/** Counts by kind. */
export function countOutcomes(outcomes: readonly { readonly kind: OutcomeKind }[]): Record<OutcomeKind, number> {
  const counts = { whole: 0, reset: 0, truncated: 0, other: 0 };
  for (const outcome of outcomes) counts[outcome.kind] += 1;
  return counts;
}

/** What one client saw, in a line. */
export function describeOutcome(outcome: TransferOutcome & { readonly kind: OutcomeKind }): string {
  return (
    `client ${outcome.index}: ${outcome.kind}, ${outcome.received} bytes, reading ended by ` +
    `${outcome.end}${outcome.error ? ` ${outcome.error}` : ''}, ${outcome.intact ? 'intact' : 'not intact'}`
  );
}

/**
 * A member that floods the controller with audit reports: as many batches as it may have in flight,
 * one after another, for a given time, ignoring what the answers say. What each answer took is kept,
 * so a test can hold the controller's `reports-dropped` counts against it.
 */
import { randomBytes } from 'node:crypto';
import type { StoredIdentity } from '../../src/node/identity-store.ts';
import { openControlChannel } from '../../src/wire/control-channel.ts';
import { auditLimits, type AuditReport } from '../../src/wire/protocol/audit.ts';

export interface FloodOptions {
  readonly durationMs: number;
  /** Requests kept in flight on the one connection. @default 16 */
  readonly inFlight?: number;
  /** The outlet the session records name beside the flooder; none: they name the flooder alone. */
  readonly peer?: string;
}

/** One batch as the controller answered it. */
export interface FloodAnswer {
  readonly sentAt: number;
  readonly size: number;
  readonly taken: number;
  readonly retryAfterMs: number;
  /** Of the batch's records, how many the controller counted as dropped: all of an early batch, else none. */
  readonly overBudget: number;
}

export interface FloodResult {
  readonly records: number;
  readonly answers: readonly FloodAnswer[];
  /** Batches that failed (a closed connection, a timeout). */
  readonly failures: number;
}

/** A session record as large as an inlet's may honestly be. */
export function sessionReport(self: string, peer: string | undefined, time = Date.now()): AuditReport {
  return {
    id: `f${randomBytes(12).toString('base64url')}`,
    event: 'session',
    time,
    members: peer ? [self, peer] : [self],
    details: JSON.stringify({
      portal: 'flood',
      path: 'relay',
      relay: 'r'.repeat(60),
      opened_at: new Date(time - 1000).toISOString(),
      duration_ms: 1000,
      bytes_from_client: 1,
      bytes_to_client: 1,
      ended: 'cut',
      reason: 'x'.repeat(200),
    }),
  };
}

export async function floodReports(member: StoredIdentity, options: FloodOptions): Promise<FloodResult> {
  const channel = await openControlChannel(member.record, { key: member.privateKey, certificate: member.certificate });
  const self = member.record.nodeId;
  const answers: FloodAnswer[] = [];
  let failures = 0;
  let records = 0;
  const until = Date.now() + options.durationMs;
  const worker = async () => {
    while (Date.now() < until) {
      const batch = Array.from({ length: auditLimits.reportRecords }, () => sessionReport(self, options.peer));
      const sentAt = Date.now();
      records += batch.length;
      try {
        const answer = (await channel.request('audit-report', { records: batch })) as {
          written: number;
          taken?: number;
          retryAfterMs?: number;
          overBudget?: number;
        };
        answers.push({
          sentAt,
          size: batch.length,
          taken: answer.taken ?? batch.length,
          retryAfterMs: answer.retryAfterMs ?? 0,
          overBudget: answer.overBudget ?? 0,
        });
      } catch {
        failures += 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.inFlight ?? 16 }, worker));
  } finally {
    channel.close();
  }
  return { records, answers, failures };
}

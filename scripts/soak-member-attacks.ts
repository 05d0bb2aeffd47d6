/**
 * The soak's member-side attacks (a member that runs its own code with its own key): each performs its
 * attack on the running project (test/support/member-attacks.ts), adds to `failures` every target it
 * misses, and returns the figures for the soak's table.
 */
import type { Attackers } from '../test/support/attack-scenarios.ts';
import {
  auditFlood,
  expiredCertificateSession,
  statusServerHold,
  withheldVerdict,
} from '../test/support/member-attacks.ts';
import type { ProbeResult } from '../test/support/status-hold.ts';
import { e2eHandshakeTimeoutMs } from '../src/wire/limits.ts';

const MiB = 1024 * 1024;
/**
 * What a member's 20 s of audit reports may add to the controller's store (database and journal). A
 * per-member budget of the order of docs/audit.md's "What a member's reports may cost" (a burst of
 * about 1 MiB of reports, then a few KiB a second) lets about 1.2 MiB of reports through in 20 s, which
 * the trail stores in a few MiB with its hashes and indexes; without a budget the same flood added
 * 19 MiB here in 31 s (159 MB in 20 s on a faster store).
 */
export const auditFloodStoreBound = 8 * MiB;
/** Within this of `revoke` returning, or of a peer certificate's notAfter, its session is closed. */
export const cutWithinMs = 1000;
/** A health probe or `portal node show` answers within this, whoever holds the status server. */
export const statusAnswerMs = 2000;

/** Item 1: revoked while it withholds its verdict: no stream accepted, closed within cutWithinMs of revoke. */
export async function withheldVerdictRow(attackers: Attackers, failures: string[]): Promise<string> {
  const held = await withheldVerdict(attackers, 'withholder');
  const closed = held.closedAfterRevokeMs;
  if (held.revokeCode !== 0) failures.push(`portal project revoke exited ${held.revokeCode} (withheld verdict)`);
  // A close the outlet's wait for a verdict explains proves nothing about revocation.
  if (held.verdictSentAfterHandshakeMs >= e2eHandshakeTimeoutMs)
    failures.push(
      `the withheld-verdict attack proved nothing: its verdict went ${held.verdictSentAfterHandshakeMs} ms after ` +
        `the handshake, past the outlet's ${e2eHandshakeTimeoutMs} ms wait for one ` +
        `(revoke returned ${held.revokeMs} ms after the handshake)`,
    );
  if (held.accepted > 0)
    failures.push(
      `the outlet accepted ${held.accepted} of ${held.opened} streams of a member revoked while it withheld ` +
        'its verdict',
    );
  if (closed === undefined || closed > cutWithinMs)
    failures.push(
      `the session of a member revoked while it withheld its verdict was ${
        closed === undefined ? `still open ${held.watchedMs} ms` : `closed ${closed} ms`
      } after revoke returned (target ${cutWithinMs} ms)`,
    );
  return (
    `outlet ${held.outletAccepted ? 'accepted' : 'refused'} it at the handshake; ` +
    `revoke returned ${held.revokeMs} ms after it; ` +
    `verdict sent after: ${held.opened} streams opened, ${held.accepted} accepted` +
    `${held.refusals.length ? ` (refused: ${held.refusals.join('; ')})` : ''}; session ` +
    (closed === undefined
      ? `still open ${held.watchedMs} ms after revoke returned`
      : `closed ${closed} ms after revoke returned`)
  );
}

/** Item 2: a session past its peer certificate's notAfter; no stream accepted from then, closed within cutWithinMs. */
export async function expiredCertificateRow(attackers: Attackers, failures: string[]): Promise<string> {
  const expired = await expiredCertificateSession(attackers, 'short-lived');
  const closed = expired.closedAfterNotAfterMs;
  if (expired.acceptedBefore === 0)
    failures.push('the short-lived member had no stream accepted before its notAfter: the attack did not take');
  if (expired.acceptedAfter > 0)
    failures.push(
      `the outlet accepted ${expired.acceptedAfter} of ${expired.openedAfter} streams after the peer's notAfter`,
    );
  if (closed === undefined || closed > cutWithinMs)
    failures.push(
      `a session whose peer certificate expired was ${
        closed === undefined ? 'still open 3 s' : `closed ${closed} ms`
      } after its notAfter (target ${cutWithinMs} ms)`,
    );
  return (
    `certificate expired ${expired.notAfterInMs} ms into the session; ` +
    `${expired.acceptedBefore} streams accepted before, ` +
    `${expired.acceptedAfter} of ${expired.openedAfter} after` +
    `${expired.refusals.length ? ` (refused: ${expired.refusals.join('; ')})` : ''}; session ` +
    (closed === undefined ? 'still open 3 s after notAfter' : `closed ${closed} ms after notAfter`)
  );
}

/** Item 3: 20 s of audit reports by a member no allow admits; the store grows by at most auditFloodStoreBound. */
export async function auditFloodRow(attackers: Attackers, failures: string[]): Promise<string> {
  const flood = await auditFlood(attackers, 'reporter');
  const grown = flood.storeBytesAfter - flood.storeBytesBefore;
  const slowest = Math.max(...flood.membersMs);
  if (grown > auditFloodStoreBound)
    failures.push(
      `a member's ${flood.seconds} s of audit reports grew the controller's store by ${(grown / MiB).toFixed(1)} MiB ` +
        `(bound ${auditFloodStoreBound / MiB} MiB)`,
    );
  if (flood.witnessWritten !== 1)
    failures.push(
      "another member's report during the audit flood was not written " +
        `(${flood.witnessError ?? `written ${flood.witnessWritten}`})`,
    );
  if (slowest > cutWithinMs)
    failures.push(
      `the administrator's members request took ${slowest} ms during the audit flood (target ${cutWithinMs} ms)`,
    );
  const refused = Object.keys(flood.refusedRequests).length
    ? ` refused requests ${JSON.stringify(flood.refusedRequests)};`
    : '';
  return (
    `${flood.recordsSent} records sent in ${flood.seconds} s, ${flood.recordsWritten} written;${refused} ` +
    `store ${(flood.storeBytesBefore / MiB).toFixed(1)} -> ${(flood.storeBytesAfter / MiB).toFixed(1)} MiB ` +
    `(${((grown / MiB) * (3600 / flood.seconds)).toFixed(0)} MiB an hour at that rate); ` +
    `another member's report ${flood.witnessWritten === 1 ? 'written' : 'NOT written'} in ${flood.witnessMs} ms; ` +
    `members answered in ${flood.membersMs.join(', ')} ms (${flood.membersBeforeMs} ms before the flood)`
  );
}

/**
 * Item 10: the outlet's status server held 10 s. Each health probe answers 200 within statusAnswerMs;
 * each `portal node show` says the node is UP within statusAnswerMs past what it took before the hold
 * (starting the CLI costs seconds on a loaded machine, and that is not the status server's doing).
 */
export async function statusHoldRow(outletHome: string, failures: string[]): Promise<string> {
  const held = await statusServerHold(outletHome, 10_000, statusAnswerMs);
  const showLimitMs = held.unheld.nodeShow.ms + statusAnswerMs;
  const healthLate = held.health.filter((probe) => probe.ms > statusAnswerMs || probe.code !== 200);
  const showLate = held.nodeShow.filter(
    (probe) => probe.ms > showLimitMs || probe.code !== 0 || !/The node is UP/.test(probe.output),
  );
  if (healthLate.length > 0)
    failures.push(
      `${healthLate.length} of ${held.health.length} health probes (${held.probe}) of the held outlet failed or took ` +
        `over ${statusAnswerMs} ms`,
    );
  if (showLate.length > 0)
    failures.push(
      `${showLate.length} of ${held.nodeShow.length} runs of portal node show on the held outlet did not say UP ` +
        `within ${showLimitMs} ms (${held.unheld.nodeShow.ms} ms unheld + ${statusAnswerMs} ms)`,
    );
  const worst = (probes: readonly ProbeResult[]) => Math.max(0, ...probes.map((probe) => probe.ms));
  const codes = (probes: readonly ProbeResult[]) => {
    const counted: Record<string, number> = {};
    for (const { code } of probes) counted[String(code ?? 'none')] = (counted[String(code ?? 'none')] ?? 0) + 1;
    return JSON.stringify(counted);
  };
  const lastShow = held.nodeShow.at(-1)?.output.trim();
  const { unheld } = held;
  return (
    `unheld: ${held.probe} ${unheld.health.code ?? 'no answer'} in ${unheld.health.ms} ms, ` +
    `node show exit ${unheld.nodeShow.code ?? 'none'} in ${unheld.nodeShow.ms} ms; ` +
    `held: holder kept ${held.heldAtEnd} connections (opened ${held.opened}); ` +
    `${held.probe} ${held.health.length - healthLate.length}/${held.health.length} answered 200 within ` +
    `${statusAnswerMs} ms, codes ${codes(held.health)}, worst ${worst(held.health)} ms; ` +
    `node show ${held.nodeShow.length - showLate.length}/${held.nodeShow.length} UP within ${showLimitMs} ms, ` +
    `exit codes ${codes(held.nodeShow)}, worst ${worst(held.nodeShow)} ms` +
    (lastShow ? `, last said "${lastShow.slice(0, 80)}"` : ', last said nothing')
  );
}

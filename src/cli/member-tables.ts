/**
 * How `portal project members` and `portal project tickets` print: one aligned row per member or
 * ticket for people, or the answer as JSON lines (--json, one object per line) for scripts. Pure: rows
 * in, text out. Every value shown comes from the controller, so each is made printable first.
 */
import { printable } from '../shared/errors.ts';
import { evaluatePolicy, type Policy } from '../shared/policy.ts';
import type { MemberInfo, TicketInfo } from '../wire/protocol.ts';

/** Columns aligned by the widest cell of each; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => printable(cell)));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** A time as the table shows it: to the second, in UTC, or "-". */
const shortTime = (iso: string | null) => (iso === null ? '-' : iso.replace(/\.\d{3}Z$/, 'Z'));

export function membersTable(members: readonly MemberInfo[]): string {
  return table(
    ['ID', 'KIND', 'ATTRIBUTES', 'RELAYS', 'ENROLLED', 'CERTIFICATE EXPIRES', 'LAST SEEN', 'SESSIONS', 'STATUS'],
    members.map((member) => [
      member.id,
      member.kind,
      member.attributes.join(',') || '-',
      member.relays.join(',') || (member.kind === 'relay' ? '(relay node)' : '-'),
      shortTime(member.enrolledAt),
      shortTime(member.certificateExpiresAt),
      member.connected ? 'connected' : shortTime(member.lastSeen),
      member.liveSessions === null ? '-' : String(member.liveSessions),
      member.revoked
        ? `revoked ${shortTime(member.revoked.at)} by ${member.revoked.by}` +
          (member.revoked.reason ? `: ${member.revoked.reason}` : '')
        : 'active',
    ]),
  );
}

/**
 * The relay names several active members hold (pools of outlets), each with its members and whether
 * they are connected now: the lines `portal project members` prints after its table.
 */
export function poolLines(members: readonly MemberInfo[]): string {
  const byRelay = new Map<string, MemberInfo[]>();
  for (const member of members)
    if (member.revoked === null && member.kind !== 'relay')
      for (const relay of member.relays) byRelay.set(relay, [...(byRelay.get(relay) ?? []), member]);
  const pools = [...byRelay].filter(([, held]) => held.length > 1);
  if (pools.length === 0) return '';
  const lines = pools.map(([relay, held]) => {
    const connected = held.filter((member) => member.connected).length;
    const each = held.map((member) => `${printable(member.id)} ${member.connected ? 'connected' : 'not connected'}`);
    return `  relay name ${printable(relay)}: ${held.length} members, ${connected} connected (${each.join(', ')})\n`;
  });
  return (
    '\nPools (relay names several members hold; each that runs an outlet of the name serves it):\n' + lines.join('')
  );
}

/** The members `policy` admits, by their attributes; revoked ones are admitted by nothing. */
export function membersAdmitted(members: readonly MemberInfo[], policy: Policy): MemberInfo[] {
  return members.filter((member) => member.revoked === null && evaluatePolicy(policy, member.attributes));
}

export function ticketsTable(tickets: readonly TicketInfo[]): string {
  return table(
    ['ID', 'GRANTS', 'USES LEFT', 'EXPIRES', 'ISSUED', 'ISSUED BY'],
    tickets.map((ticket) => [
      ticket.id,
      grantsOf(ticket.grants),
      String(ticket.usesLeft),
      shortTime(ticket.expiresAt),
      shortTime(ticket.issuedAt),
      ticket.issuedBy ?? '-',
    ]),
  );
}

function grantsOf(grants: TicketInfo['grants']): string {
  if (grants.admin) return 'administrator';
  if (grants.relayNode) return 'relay node';
  return [
    ...(grants.attributes.length > 0 ? [`attribute ${grants.attributes.join(',')}`] : []),
    ...grants.relays.map((relay) => `relay ${relay}`),
    ...(grants.tls ? ['tls'] : []),
  ].join(', ');
}

/** One JSON object per line: the export format of both listings. */
export const jsonLines = (items: readonly object[]) => items.map((item) => `${JSON.stringify(item)}\n`).join('');

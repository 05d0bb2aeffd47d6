/**
 * The key a per-source bound counts a peer under. An IPv4 address is one source. An IPv6 address is
 * not: a host is routinely given a whole /64 and may pick any of its 2^64 addresses for each
 * connection, so one /64 is one source, as one IPv4 address behind a NAT is. An IPv4 address in its
 * IPv6-mapped form (a dual-stack listener's view of an IPv4 peer) is counted as that IPv4 address.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Key of a socket whose address is unknown (it closed before it was read). */
export const unknownSource = '?';

/** `address` (as `socket.remoteAddress` gives it) as the source a per-source bound counts. */
export function sourceKeyOf(address: string | undefined): string {
  if (address === undefined || address === '') return unknownSource;
  if (isIPv4(address)) return address;
  const zoneAt = address.indexOf('%');
  const bare = zoneAt === -1 ? address : address.slice(0, zoneAt);
  if (!isIPv6(bare)) return address;
  const groups = hextets(bare);
  const [, , , , , mapped, high = 0, low = 0] = groups;
  if (mapped === 0xffff && groups.slice(0, 5).every((group) => group === 0))
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  // A link-local /64 exists once per link: the zone names which.
  const zone = zoneAt === -1 ? '' : address.slice(zoneAt);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64${zone}`;
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded and a dotted IPv4 tail converted. */
function hextets(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const before = parse(head);
  const after = tail === undefined ? [] : parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

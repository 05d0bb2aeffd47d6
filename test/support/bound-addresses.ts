/**
 * What the kernel says a port is bound to: the local addresses of the listening TCP sockets on it, from
 * /proc/net/tcp and /proc/net/tcp6 (Linux). A test reads these rather than trusting what a process
 * reports about itself.
 */
import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';

const listenState = '0A';

function ipv4Of(hex: string): string {
  // /proc writes the address as one little-endian 32-bit word.
  const bytes = Buffer.from(hex, 'hex');
  return [bytes[3], bytes[2], bytes[1], bytes[0]].join('.');
}

function ipv6Of(hex: string): string {
  const words: string[] = [];
  for (let word = 0; word < 4; word += 1) {
    const bytes = Buffer.from(hex.slice(word * 8, word * 8 + 8), 'hex').reverse();
    words.push(bytes.subarray(0, 2).toString('hex'), bytes.subarray(2, 4).toString('hex'));
  }
  return words.join(':');
}

/** The addresses TCP listeners on `port` are bound to, such as ["127.0.0.1"] or ["0.0.0.0"]. */
export async function listeningAddresses(port: number): Promise<string[]> {
  const found: string[] = [];
  for (const [file, decode] of [
    ['/proc/net/tcp', ipv4Of],
    ['/proc/net/tcp6', ipv6Of],
  ] as const) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [local, , state] = [fields[1], fields[2], fields[3]];
      if (!local || state !== listenState) continue;
      const [address, portHex] = local.split(':') as [string, string];
      if (Number.parseInt(portHex, 16) === port) found.push(decode(address));
    }
  }
  return found.sort();
}

/** This machine's IPv4 addresses other than loopback: where another machine would connect. */
export function externalIpv4Addresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((entry) => (entry && entry.family === 'IPv4' && !entry.internal ? [entry.address] : []));
}

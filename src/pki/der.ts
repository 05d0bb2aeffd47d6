/**
 * DER, the encoding of X.509: just what Portal's certificates and certificate requests are made of.
 * Writing builds a value from its parts; reading is strict, since a request comes from a peer not yet
 * trusted: single-byte tags, definite lengths in minimal form, every element inside its parent.
 */

/** Universal and context tags Portal writes or reads (the whole identifier octet). */
export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

function lengthOctets(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One element: its identifier octet, then its content. */
export function element(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthOctets(content.length), content]);
}

export const sequence = (...parts: Buffer[]) => element(Tag.sequence, Buffer.concat(parts));

/** A SET OF, its members in the ascending order DER asks for. */
export const setOf = (...members: Buffer[]) =>
  element(Tag.set, Buffer.concat([...members].sort((a, b) => Buffer.compare(a, b))));

/** [n] EXPLICIT: the whole element wrapped in a constructed context tag. */
export const explicit = (n: number, inner: Buffer) => element(0xa0 | n, inner);

/** A non-negative INTEGER from its big-endian bytes, in the fewest octets. */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  const padded =
    trimmed.length === 0 || (trimmed[0] as number) & 0x80 ? Buffer.concat([Buffer.alloc(1), trimmed]) : trimmed;
  return element(Tag.integer, padded);
}

export const smallInteger = (value: number) => unsignedInteger(Buffer.from([value]));

export const boolean = (value: boolean) => element(Tag.boolean, Buffer.from([value ? 0xff : 0x00]));

export const octetString = (content: Buffer) => element(Tag.octetString, content);

/** A BIT STRING of whole bytes. */
export const bitString = (content: Buffer) => element(Tag.bitString, Buffer.concat([Buffer.alloc(1), content]));

/** A BIT STRING of named bits (bit 0 is the first byte's high bit), with the trailing zero bits unused. */
export function namedBits(bits: readonly number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const bit of bits) bytes[bit >> 3] = (bytes[bit >> 3] as number) | (0x80 >> (bit & 7));
  return element(Tag.bitString, Buffer.concat([Buffer.from([7 - (last & 7)]), bytes]));
}

export function oid(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const octets: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const base128: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      base128.unshift(0x80 | (value & 0x7f));
    octets.push(...base128);
  }
  return element(Tag.oid, Buffer.from(octets));
}

const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

/** A DirectoryString: PrintableString where its alphabet suffices, UTF8String otherwise. */
export const directoryString = (text: string) =>
  element(printable.test(text) ? Tag.printableString : Tag.utf8String, Buffer.from(text, 'utf8'));

/** A Time as RFC 5280 asks: UTCTime through 2049, GeneralizedTime from 2050, to the second, in UTC. */
export function time(at: Date): Buffer {
  const iso = at.toISOString();
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  return at.getUTCFullYear() < 2050
    ? element(Tag.utcTime, Buffer.from(`${digits.slice(2)}Z`, 'latin1'))
    : element(Tag.generalizedTime, Buffer.from(`${digits}Z`, 'latin1'));
}

/** One element read from a buffer: where it starts, where its content starts, where it ends. */
export interface Element {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

export class DerError extends Error {}

/** The element at `offset`, which must end by `limit`. */
export function readElement(der: Buffer, offset: number, limit = der.length): Element {
  if (offset + 2 > limit) throw new DerError('truncated');
  const tag = der[offset] as number;
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tag');
  const first = der[offset + 1] as number;
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new DerError('unsupported length');
    if (contentStart + count > limit) throw new DerError('truncated');
    length = 0;
    for (let index = 0; index < count; index += 1) length = length * 256 + (der[contentStart + index] as number);
    if (length < 0x80 || (der[contentStart] as number) === 0) throw new DerError('length not in minimal form');
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > limit) throw new DerError('element overruns its parent');
  return { tag, start: offset, contentStart, end };
}

/** The element at `offset`, which must carry `tag`. */
export function expect(der: Buffer, offset: number, tag: number, limit = der.length): Element {
  const read = readElement(der, offset, limit);
  if (read.tag !== tag) throw new DerError(`expected tag 0x${tag.toString(16)}, found 0x${read.tag.toString(16)}`);
  return read;
}

/** The elements inside a constructed one, in order. */
export function children(der: Buffer, parent: Element): Element[] {
  const found: Element[] = [];
  for (let offset = parent.contentStart; offset < parent.end;) {
    const child = readElement(der, offset, parent.end);
    found.push(child);
    offset = child.end;
  }
  return found;
}

export const contentOf = (der: Buffer, read: Element) => der.subarray(read.contentStart, read.end);
export const bytesOf = (der: Buffer, read: Element) => der.subarray(read.start, read.end);

/** The dotted form of an OBJECT IDENTIFIER's content. */
export function oidText(content: Buffer): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const [head = 0, ...rest] = arcs;
  const first = Math.min(2, Math.floor(head / 40));
  return [first, head - first * 40, ...rest].join('.');
}

/** The DER inside a PEM block of `label`; undefined when there is none or it holds more than one element. */
export function fromPem(pem: string, label: string): Buffer | undefined {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
  if (!match) return undefined;
  const der = Buffer.from((match[1] as string).replace(/\s+/g, ''), 'base64');
  try {
    return readElement(der, 0).end === der.length ? der : undefined;
  } catch {
    return undefined;
  }
}

export function toPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

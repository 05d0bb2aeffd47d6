/**
 * The controller backup's container: a POSIX tar (ustar) archive of regular files, so an operator can
 * list it (`tar -tvf`) and unpack it by hand into a data directory. Written and read here with no
 * dependency; the reader takes only what the writer makes: regular files by names the caller expects,
 * each at most once, with valid header checksums.
 */
import { InputError } from '../shared/errors.ts';

export interface ArchiveEntry {
  /** A plain file name (no directory), at most 100 bytes. */
  readonly name: string;
  /** Permission bits, such as 0o600. */
  readonly mode: number;
  readonly content: Buffer;
}

const block = 512;

/** Octal digits, zero-padded to `width` characters and NUL-terminated, as tar headers hold numbers. */
function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(entry: ArchiveEntry, mtimeSeconds: number): Buffer {
  const bytes = Buffer.alloc(block);
  const put = (offset: number, text: string) => bytes.write(text, offset, 'latin1');
  if (Buffer.byteLength(entry.name) > 100 || entry.name.includes('/'))
    throw new Error(`tar entry name ${entry.name} is not a plain name of 100 bytes or fewer`);
  bytes.write(entry.name, 0, 'utf8');
  put(100, octal(entry.mode & 0o7777, 8));
  put(108, octal(0, 8));
  put(116, octal(0, 8));
  put(124, octal(entry.content.length, 12));
  put(136, octal(mtimeSeconds, 12));
  put(148, ' '.repeat(8));
  put(156, '0');
  put(257, 'ustar\0');
  put(263, '00');
  put(148, `${checksum(bytes).toString(8).padStart(6, '0')}\0 `);
  return bytes;
}

/** The sum of the header's bytes, its checksum field counted as spaces. */
function checksum(bytes: Buffer): number {
  let sum = 0;
  for (let i = 0; i < block; i += 1) sum += i >= 148 && i < 156 ? 0x20 : (bytes[i] as number);
  return sum;
}

const padding = (length: number) => Buffer.alloc((block - (length % block)) % block);

/** The archive of `entries`, in their order, ending with the two zero blocks tar expects. */
export function writeTar(entries: readonly ArchiveEntry[], mtime = new Date()): Buffer {
  const seconds = Math.floor(mtime.getTime() / 1000);
  return Buffer.concat([
    ...entries.flatMap((entry) => [header(entry, seconds), entry.content, padding(entry.content.length)]),
    Buffer.alloc(2 * block),
  ]);
}

/** The entries of an archive `writeTar` made; anything else in `where` is refused as not a backup. */
export function readTar(bytes: Buffer, expected: ReadonlySet<string>, where: string): Map<string, ArchiveEntry> {
  const entries = new Map<string, ArchiveEntry>();
  const refuse = (why: string) =>
    new InputError('BACKUP_INVALID', `${where} is not a Portal controller backup: ${why}`, {
      hint: 'give a file that portal controller backup wrote, whole',
    });
  let offset = 0;
  for (;;) {
    if (offset + block > bytes.length) throw refuse('it ends before its end marker (cut short?)');
    const head = bytes.subarray(offset, offset + block);
    if (head.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      head
        .subarray(start, start + length)
        .toString('latin1')
        .replace(/[\0 ]+$/, '');
    if (!field(257, 6).startsWith('ustar')) throw refuse('it is not a tar archive');
    if (Number.parseInt(field(148, 8), 8) !== checksum(head)) throw refuse(`the header at byte ${offset} is damaged`);
    const name = head.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const type = field(156, 1);
    if (type !== '0' && type !== '') throw refuse(`${JSON.stringify(name)} is not a regular file`);
    if (!expected.has(name)) throw refuse(`it holds ${JSON.stringify(name)}, which a backup never does`);
    if (entries.has(name)) throw refuse(`it holds ${name} twice`);
    const sizeText = field(124, 12);
    const size = /^[0-7]+$/.test(sizeText) ? Number.parseInt(sizeText, 8) : Number.NaN;
    const start = offset + block;
    if (!Number.isSafeInteger(size) || start + size > bytes.length) throw refuse(`${name} is cut short`);
    entries.set(name, {
      name,
      mode: Number.parseInt(field(100, 8), 8) & 0o7777,
      content: Buffer.from(bytes.subarray(start, start + size)),
    });
    offset = start + Math.ceil(size / block) * block;
  }
  return entries;
}

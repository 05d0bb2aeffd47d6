/**
 * A server's own TLS certificate and key on disk (the controller's, a relay's): the certificate in the
 * clear, the key sealed like every other private key, so a copy of the directory cannot pose as the
 * server. Tickets and nodes pin the certificate's fingerprint, so the pair is made once and kept: a
 * key that is there but does not open stops the start instead of being replaced.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServerCertificate } from '../pki/authority.ts';
import { UnsealError, seal, unseal } from '../pki/seal.ts';
import { RuntimeFailure } from './errors.ts';
import { warnIfKeyFileOpen, type Warn } from './key-file-permissions.ts';

export const serverCertificateFiles = {
  certificate: 'tls.crt',
  sealedKey: 'tls.key.sealed',
  /** Where earlier versions kept the key, unsealed. Sealed and removed on first start. */
  legacyKey: 'tls.key',
} as const;

export interface ServerCertificateOptions {
  /** Holds the certificate and the sealed key; made (0700) when missing. */
  readonly directory: string;
  /** Subject and DNS name of a new certificate, such as "portal-controller". */
  readonly commonName: string;
  readonly sealingKey: Buffer;
  /** Where the sealing key came from (a file or a variable), for messages. */
  readonly sealingKeyName: string;
  /** How the operator gives the sealing key that sealed the TLS key. */
  readonly howToGiveKey: string;
  /** Where the migration of an unsealed key is reported. */
  readonly log?: (line: string) => void;
  /** Where a sealed key file that other users may read or write is reported. @default one WARN line on stderr */
  readonly warn?: Warn;
}

export interface ServerCertificate {
  readonly privateKey: string;
  readonly certificate: string;
}

/** True when `directory` holds a sealed TLS key: then a new sealing key can never open it. */
export function hasSealedServerKey(directory: string): boolean {
  return existsSync(join(directory, serverCertificateFiles.sealedKey));
}

/**
 * The certificate and its key: made on first start, opened on every later one. A key left unsealed by
 * an earlier version is sealed, the plain file removed, and the move logged once. A sealed key that other
 * users may read or write draws one warning per process through `warn`.
 */
export async function loadServerCertificate(options: ServerCertificateOptions): Promise<ServerCertificate> {
  const paths = {
    certificate: join(options.directory, serverCertificateFiles.certificate),
    sealedKey: join(options.directory, serverCertificateFiles.sealedKey),
    legacyKey: join(options.directory, serverCertificateFiles.legacyKey),
  };
  const [certificate, sealed, plain] = await Promise.all([
    readIfPresent(paths.certificate).then((bytes) => bytes?.toString('utf8')),
    readIfPresent(paths.sealedKey),
    readIfPresent(paths.legacyKey).then((bytes) => bytes?.toString('utf8')),
  ]);
  if (certificate === undefined && sealed === undefined && plain === undefined) return createPair(options, paths);
  const keyPath = sealed !== undefined ? paths.sealedKey : paths.legacyKey;
  if (certificate === undefined)
    throw halfPair(`${paths.certificate} is missing, but its key ${keyPath} is there`, keyPath);
  if (sealed === undefined && plain === undefined)
    throw halfPair(
      `${paths.sealedKey} is missing, but its certificate ${paths.certificate} is there`,
      paths.certificate,
    );
  if (sealed !== undefined) await warnIfKeyFileOpen(paths.sealedKey, 'the sealed TLS key file', options.warn);
  const privateKey = sealed !== undefined ? openSealed(options, paths.sealedKey, sealed) : (plain as string);
  checkPair(paths, privateKey, certificate, keyPath);
  if (plain !== undefined) {
    // Sealed before the plain file goes, so a start cut short in between finds the key sealed and only
    // removes the copy.
    if (sealed === undefined)
      await writeAtomically(paths.sealedKey, seal(options.sealingKey, Buffer.from(plain)), 0o600);
    await rm(paths.legacyKey, { force: true });
    options.log?.(
      `sealed the TLS key of ${options.directory}: ${paths.sealedKey} under ${options.sealingKeyName}, ` +
        `and the unsealed ${paths.legacyKey} was removed`,
    );
  }
  return { privateKey, certificate };
}

type Paths = { readonly certificate: string; readonly sealedKey: string; readonly legacyKey: string };

/** The key first: a certificate on disk means its key is kept, so a start cut short leaves no pin without a key. */
async function createPair(options: ServerCertificateOptions, paths: Paths): Promise<ServerCertificate> {
  await mkdir(options.directory, { recursive: true, mode: 0o700 });
  const created = createServerCertificate(options.commonName);
  await writeAtomically(paths.sealedKey, seal(options.sealingKey, Buffer.from(created.privateKey)), 0o600);
  await writeAtomically(paths.certificate, created.certificate, 0o644);
  return { privateKey: created.privateKey, certificate: created.certificate };
}

function openSealed(options: ServerCertificateOptions, path: string, sealed: Buffer): string {
  try {
    return unseal(options.sealingKey, sealed).toString('utf8');
  } catch (error) {
    if (!(error instanceof UnsealError)) throw error;
    if (error.reason === 'damaged' || error.reason === 'not-sealed') throw damaged(path, error.message);
    throw new RuntimeFailure(
      'SEALING_KEY_WRONG',
      `the sealing key in ${options.sealingKeyName} does not open the TLS key in ${path} (${error.message})`,
      {
        hint:
          `${options.howToGiveKey}: the one that sealed it ` +
          '(a new TLS key would change the fingerprint every ticket and node pins)',
      },
    );
  }
}

/** The key parses and is the certificate's: a mismatch would fail every handshake later, with less to go on. */
function checkPair(paths: Paths, privateKey: string, certificate: string, keyPath: string): void {
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(certificate);
  } catch {
    throw damaged(paths.certificate, 'it is not a PEM X.509 certificate');
  }
  let key;
  try {
    key = createPrivateKey(privateKey);
  } catch {
    throw damaged(keyPath, 'it does not hold a private key');
  }
  if (!parsed.checkPrivateKey(key))
    throw damaged(paths.certificate, `it is not the certificate of the key in ${keyPath}`);
}

function damaged(path: string, what: string): RuntimeFailure {
  return new RuntimeFailure('TLS_KEY_DAMAGED', `${path} is damaged: ${what}`, {
    hint: 'restore the directory from a backup (a new TLS key would change the fingerprint every ticket and node pins)',
  });
}

/** Half of the pair is gone: only a backup brings the pinned fingerprint back. */
function halfPair(message: string, remaining: string): RuntimeFailure {
  return new RuntimeFailure('TLS_KEY_DAMAGED', message, {
    hint:
      `restore it from a backup, or remove ${remaining} to make a new pair ` +
      '(every ticket and node pinned the old fingerprint: enroll them again)',
  });
}

async function readIfPresent(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new RuntimeFailure('TLS_KEY_UNREADABLE', `cannot read ${path} (${code ?? (error as Error).message})`, {
      hint: 'give this user read access to it',
    });
  }
}

/** Writes next to `path` and renames into place, so a reader never sees half a key. */
async function writeAtomically(path: string, content: string | Buffer, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

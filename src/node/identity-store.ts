/**
 * An enrolled identity on disk, in a directory of its own under PORTAL_HOME: the private key sealed
 * (0600), the certificate, the project CA, and where the controller is. A restarted or replaced machine
 * with the same directory needs no ticket again.
 *
 * The sealing key lives elsewhere (src/shared/sealing-key.ts): for a node, the file PORTAL_SEALING_KEY_FILE
 * names, else <home>/keys/node-seal.key; for an administrator, <home>/keys/admin-seal.key. Everything is
 * checked on load, so a damaged file stops the node with one line naming it instead of failing later.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { identityOf } from '../pki/identity.ts';
import { UnsealError, seal, unseal } from '../pki/seal.ts';
import { addressesOf } from '../wire/replica-addresses.ts';
import { parseHostPort } from '../shared/address.ts';
import { RuntimeFailure } from '../shared/errors.ts';
import { warnIfKeyFileOpen, type Warn } from '../shared/key-file-permissions.ts';
import {
  createSealingKeyFile,
  keysDirectory,
  legacySealingKeyFile,
  readSealingKey,
  refuseKeyBeside,
  sealingKeyVariables,
} from '../shared/sealing-key.ts';
import type { ControllerPin } from '../wire/ticket.ts';
import { loggerFromEnvironmentOrDefault } from './logger.ts';

export interface IdentityRecord extends ControllerPin {
  readonly projectId: string;
  readonly nodeId: string;
  readonly networkDomain: string;
  readonly attributes: readonly string[];
  readonly relays: readonly string[];
  readonly tls: boolean;
}

export interface StoredIdentity {
  readonly record: IdentityRecord;
  readonly privateKey: string;
  readonly certificate: string;
  readonly authority: string;
}

export interface IdentityStoreOptions {
  /**
   * The file holding the sealing key material.
   * @default PORTAL_SEALING_KEY_FILE for a directory named "node", else <parent>/keys/<name>-seal.key
   */
  readonly sealingKeyFile?: string;
  /** Where a migration is reported. @default the node's log (NODE_LOGGING, NODE_LOG_LEVEL) */
  readonly log?: (line: string) => void;
  /** Where a key file that other users may read or write is reported. @default the node's log */
  readonly warn?: Warn;
  /** @default process.env */
  readonly environment?: NodeJS.ProcessEnv;
}

const files = {
  record: 'identity.json',
  key: 'identity.key.sealed',
  certificate: 'certificate.pem',
  authority: 'project-ca.pem',
} as const;

interface KeyLocation {
  readonly path: string;
  /** Named by the caller or the environment (created as soon as it is known that nothing is sealed yet). */
  readonly named: boolean;
  /** How the user points Portal at another file. */
  readonly howToName: string;
}

function keyLocation(directory: string, options: IdentityStoreOptions): KeyLocation {
  const environment = options.environment ?? process.env;
  const name = basename(directory);
  const fromEnvironment = name === 'node' ? environment[sealingKeyVariables.node] : undefined;
  const named = options.sealingKeyFile ?? (fromEnvironment || undefined);
  const howToName = name === 'node' ? `set ${sealingKeyVariables.node} to the file that holds it` : 'put the file back';
  return {
    path: named ?? join(keysDirectory(dirname(directory)), `${name}-seal.key`),
    named: named !== undefined,
    howToName,
  };
}

const warnOf = (options: IdentityStoreOptions): Warn =>
  options.warn ?? ((line) => loggerFromEnvironmentOrDefault(options.environment ?? process.env).warn(line));

const readKey = (location: KeyLocation, options: IdentityStoreOptions) =>
  readSealingKey({ kind: 'file', path: location.path }, warnOf(options));

const createKey = (location: KeyLocation, options: IdentityStoreOptions) =>
  createSealingKeyFile(location.path, warnOf(options));

function checkLocation(directory: string, location: KeyLocation): void {
  refuseKeyBeside(
    { kind: 'file', path: location.path },
    directory,
    `keep it on other storage (${sealingKeyVariables.node} names the file)`,
  );
}

/** Writes `content` next to `path` and renames it into place, so readers never see half a file. */
async function writeAtomically(path: string, content: string | Buffer, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await rename(temporary, path);
}

function damaged(directory: string, path: string, what: string): RuntimeFailure {
  return new RuntimeFailure('IDENTITY_DAMAGED', `${path} is damaged: ${what}`, {
    hint: `restore ${directory} from a backup, or remove it and enroll again with a new ticket`,
  });
}

async function readStateFile(directory: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw damaged(
      directory,
      path,
      code === 'ENOENT' ? 'it is missing' : `it cannot be read (${code ?? (error as Error).message})`,
    );
  }
}

/**
 * Who the identity in `directory` is (its record alone: no key is opened), or undefined when there is
 * none or it cannot be read: for what `portal reset` tells of the identity it removes.
 */
export async function readIdentityRecord(directory: string): Promise<IdentityRecord | undefined> {
  const text = await readFile(join(directory, files.record), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return parseRecord(text, directory, join(directory, files.record));
  } catch {
    return undefined;
  }
}

export async function loadIdentity(
  directory: string,
  options: IdentityStoreOptions = {},
): Promise<StoredIdentity | undefined> {
  const location = keyLocation(directory, options);
  const recordPath = join(directory, files.record);
  let recordText: string;
  try {
    recordText = await readFile(recordPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw damaged(directory, recordPath, `it cannot be read (${(error as NodeJS.ErrnoException).code})`);
    // No identity yet. A key file the operator named is made now, so a path that cannot hold it
    // fails before a ticket is spent.
    checkLocation(directory, location);
    if (location.named && !(await readKey(location, options))) await createKey(location, options);
    return undefined;
  }
  const record = parseRecord(recordText, directory, recordPath);
  checkLocation(directory, location);
  const [sealed, certificate, authority] = await Promise.all([
    readStateFile(directory, join(directory, files.key)),
    readStateFile(directory, join(directory, files.certificate)).then((bytes) => bytes.toString('utf8')),
    readStateFile(directory, join(directory, files.authority)).then((bytes) => bytes.toString('utf8')),
  ]);
  await warnIfKeyFileOpen(join(directory, files.key), 'the sealed private key file', warnOf(options));
  const privateKey = await openPrivateKey(directory, location, sealed, options);
  const identity = { record, privateKey, certificate, authority };
  checkCredentials(directory, identity);
  return identity;
}

export async function saveIdentity(
  directory: string,
  identity: StoredIdentity,
  options: IdentityStoreOptions = {},
): Promise<void> {
  const location = keyLocation(directory, options);
  checkLocation(directory, location);
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const key = (await readKey(location, options)) ?? (await createKey(location, options));
  await writeAtomically(join(directory, files.key), seal(key, Buffer.from(identity.privateKey)), 0o600);
  await writeAtomically(join(directory, files.certificate), identity.certificate, 0o644);
  await writeAtomically(join(directory, files.authority), identity.authority, 0o644);
  // The record last: its presence means the identity is complete.
  await writeAtomically(join(directory, files.record), `${JSON.stringify(identity.record, null, 2)}\n`, 0o644);
}

/** Only the certificate changes on renewal, and the record when the certificate grants other names. */
export async function saveCertificate(directory: string, certificate: string): Promise<void> {
  await writeAtomically(join(directory, files.certificate), certificate, 0o644);
}

/** The record again: after a renewal that carried other grants (say, a relay name granted since). */
export async function saveRecord(directory: string, record: IdentityRecord): Promise<void> {
  await writeAtomically(join(directory, files.record), `${JSON.stringify(record, null, 2)}\n`, 0o644);
}

/**
 * The private key, unsealed. State from an earlier version (its key in <directory>/seal.key) is
 * re-sealed under the key file once, and the old key removed; a run cut short in between finds the
 * state sealed under the new key and only removes the old one.
 */
async function openPrivateKey(
  directory: string,
  location: KeyLocation,
  sealed: Buffer,
  options: IdentityStoreOptions,
): Promise<string> {
  const sealedPath = join(directory, files.key);
  const legacyPath = join(directory, legacySealingKeyFile);
  const legacy = await readFile(legacyPath).catch(() => undefined);
  let key = await readKey(location, options);
  let plain: Buffer | undefined;
  if (key) {
    try {
      plain = unseal(key, sealed);
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      if (!legacy || error.reason === 'damaged') throw unsealFailure(directory, location, sealedPath, error);
    }
    if (plain && legacy) await rm(legacyPath, { force: true });
  } else if (!legacy) {
    throw new RuntimeFailure(
      'SEALING_KEY_MISSING',
      `the node key in ${sealedPath} is sealed, but its sealing key file ${location.path} does not exist`,
      {
        hint:
          `${location.howToName}; without it this identity cannot be used: ` +
          `remove ${directory} and enroll again with a new ticket`,
      },
    );
  }
  if (!plain) {
    try {
      plain = unseal(legacy as Buffer, sealed);
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      throw damaged(
        directory,
        sealedPath,
        `it does not open with the key of the earlier version in ${legacyPath} (${error.message})`,
      );
    }
    key ??= await createKey(location, options);
    await writeAtomically(sealedPath, seal(key, plain), 0o600);
    await rm(legacyPath, { force: true });
    const log =
      options.log ?? ((line: string) => loggerFromEnvironmentOrDefault(options.environment ?? process.env).info(line));
    log(
      `moved the sealing key out of ${directory}: ${sealedPath} is now sealed under ${location.path}, ` +
        `and ${legacyPath} was removed`,
    );
  }
  return plain.toString('utf8');
}

function unsealFailure(
  directory: string,
  location: KeyLocation,
  sealedPath: string,
  error: UnsealError,
): RuntimeFailure {
  if (error.reason === 'damaged' || error.reason === 'not-sealed') return damaged(directory, sealedPath, error.message);
  return new RuntimeFailure(
    'SEALING_KEY_WRONG',
    `the sealing key in ${location.path} does not open ${sealedPath} (${error.message})`,
    {
      hint:
        `give the key that sealed it (${location.howToName}), ` +
        `or remove ${directory} and enroll again with a new ticket`,
    },
  );
}

/** identity.json: every field present with its type; one line lists what is wrong. */
function parseRecord(text: string, directory: string, path: string): IdentityRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damaged(directory, path, text.trim() === '' ? 'it is empty' : 'it is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw damaged(directory, path, 'it is not a JSON object');
  const record: Record<string, unknown> = { ...value };
  if (!isIdentityRecord(record)) throw damaged(directory, path, `missing or wrong: ${wrongFields(record).join(', ')}`);
  return record;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isTextList = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Each field of identity.json: the check its value passes, and what it should be. */
const recordChecks: { readonly [F in keyof IdentityRecord]-?: readonly [(value: unknown) => boolean, string] } = {
  controller: [
    (value) => isText(value) && addressesOf(value).length > 0 && addressesOf(value).every((a) => parseHostPort(a).ok),
    'host:port, or several comma-separated',
  ],
  fingerprint: [(value) => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value), 'SHA-256 hex'],
  projectId: [isText, 'text'],
  nodeId: [isText, 'text'],
  networkDomain: [isText, 'text'],
  attributes: [isTextList, 'a list of text'],
  relays: [isTextList, 'a list of text'],
  tls: [(value) => typeof value === 'boolean', 'true or false'],
};

/** The fields that fail their check, each with what it should be. */
function wrongFields(record: Record<string, unknown>): string[] {
  return Object.entries(recordChecks).flatMap(([field, [check, expected]]) =>
    check(record[field]) ? [] : [`${field} (${expected})`],
  );
}

function isIdentityRecord(record: Record<string, unknown>): record is Record<string, unknown> & IdentityRecord {
  return wrongFields(record).length === 0;
}

/**
 * The key, certificate and CA belong together: the certificate parses, is for this key, carries this
 * record's identity and is signed by the project CA. Expiry is not checked: an expired certificate is
 * renewed by the node, not damage.
 */
function checkCredentials(directory: string, identity: StoredIdentity): void {
  const path = (name: string) => join(directory, name);
  let key: KeyObject;
  try {
    key = createPrivateKey(identity.privateKey);
  } catch {
    throw damaged(directory, path(files.key), 'it does not hold a private key');
  }
  const certificate = parseCertificate(directory, path(files.certificate), identity.certificate);
  const authority = parseCertificate(directory, path(files.authority), identity.authority);
  if (!authority.ca) throw damaged(directory, path(files.authority), 'it is not a CA certificate');
  if (!certificate.checkPrivateKey(key))
    throw damaged(
      directory,
      path(files.certificate),
      `it is not this node's certificate (its public key does not match the key in ${files.key})`,
    );
  if (!certificate.checkIssued(authority) || !certificate.verify(authority.publicKey)) {
    throw damaged(directory, path(files.certificate), `it is not signed by the project CA in ${files.authority}`);
  }
  let holder;
  try {
    holder = identityOf(certificate);
  } catch {
    holder = undefined;
  }
  if (!holder || holder.projectId !== identity.record.projectId || holder.nodeId !== identity.record.nodeId) {
    throw damaged(
      directory,
      path(files.certificate),
      `it names another node than ${files.record} (${identity.record.nodeId} in project ${identity.record.projectId})`,
    );
  }
}

function parseCertificate(directory: string, path: string, pem: string): X509Certificate {
  if (pem.trim() === '') throw damaged(directory, path, 'it is empty');
  try {
    return new X509Certificate(pem);
  } catch {
    throw damaged(directory, path, 'it is not a PEM X.509 certificate');
  }
}

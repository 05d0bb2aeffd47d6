/**
 * Where sealing keys come from. A sealing key is never stored beside what it seals: a stolen copy of a
 * node's state directory or of a controller's data directory must not carry the key that opens it.
 *
 * Key material is secret text (at least 32 characters once trimmed, such as `openssl rand -base64 32`
 * prints); the 32-byte key is derived from it (see sealingKeyFromMaterial).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { sealingKeyFromMaterial } from '../pki/seal.ts';
import { InputError, RuntimeFailure } from './errors.ts';
import { warnIfKeyFileOpen, type Warn } from './key-file-permissions.ts';

/** Fewer characters than this, once trimmed, are refused as key material. */
export const minimumKeyMaterialLength = 32;

/** Key files under $PORTAL_HOME/keys, one per sealed directory of $PORTAL_HOME. */
export const keysDirectory = (home: string) => join(home, 'keys');
export const sealingKeyFileNames = {
  node: 'node-seal.key',
  admin: 'admin-seal.key',
  controller: 'controller-seal.key',
} as const;

/** Where earlier versions kept the key: inside the directory it sealed. Moved out on first load. */
export const legacySealingKeyFile = 'seal.key';

/** Environment variables an operator gives keys with. */
export const sealingKeyVariables = {
  /** A node's key file (for example on the instance's own disk, or a separate volume). */
  node: 'PORTAL_SEALING_KEY_FILE',
  /** The controller's key material itself. */
  controllerMaterial: 'PORTAL_CONTROLLER_SEALING_KEY',
  /** A file holding the controller's key material. */
  controllerFile: 'PORTAL_CONTROLLER_SEALING_KEY_FILE',
} as const;

/**
 * The directory where systemd hands a service the credentials its unit loads (`LoadCredential=`), one
 * file per credential, readable by the service alone and never on disk (systemd.exec(5), "Credentials").
 */
export const credentialsDirectoryVariable = 'CREDENTIALS_DIRECTORY';

/** The file of the credential `name` when the service manager handed this process one, else undefined. */
export function credentialFile(environment: NodeJS.ProcessEnv, name: string): string | undefined {
  const directory = environment[credentialsDirectoryVariable];
  if (!directory) return undefined;
  const path = join(directory, name);
  return existsSync(path) ? path : undefined;
}

export type SealingKeySource =
  | { readonly kind: 'file'; readonly path: string }
  /** Material handed over directly, for example from an environment variable; `name` says where from. */
  | { readonly kind: 'material'; readonly name: string; readonly material: string };

export function describeSealingKey(source: SealingKeySource): string {
  return source.kind === 'file' ? source.path : source.name;
}

/** The key from its material; refuses material too short to be a secret. */
export function keyFromMaterial(text: string, where: string): Buffer {
  const material = text.trim();
  if (material.length < minimumKeyMaterialLength) {
    throw new InputError(
      'SEALING_KEY_TOO_SHORT',
      `the sealing key in ${where} has ${material.length} characters; at least ${minimumKeyMaterialLength} are needed`,
      {
        hint: 'make one with openssl rand -base64 32',
      },
    );
  }
  return sealingKeyFromMaterial(material);
}

/**
 * The key, or undefined when its file does not exist (a source of material always has one). A file
 * that users other than its owner may read or write draws one warning through `warn` (one WARN line on
 * stderr when the caller has no logger).
 */
export async function readSealingKey(source: SealingKeySource, warn?: Warn): Promise<Buffer | undefined> {
  if (source.kind === 'material') return keyFromMaterial(source.material, source.name);
  let text: string;
  try {
    text = await readFile(source.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new RuntimeFailure(
      'SEALING_KEY_UNREADABLE',
      `cannot read the sealing key file ${source.path} (${code ?? (error as Error).message})`,
      {
        hint: 'give this user read access to it, or name another file',
      },
    );
  }
  const key = keyFromMaterial(text, source.path);
  await warnIfKeyFileOpen(source.path, 'the sealing key file', warn);
  return key;
}

/** Writes fresh key material to `path` (0600, its directory 0700); a file that appeared meanwhile wins. */
export async function createSealingKeyFile(path: string, warn?: Warn): Promise<Buffer> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') {
      throw new RuntimeFailure(
        'SEALING_KEY_UNWRITABLE',
        `cannot create the sealing key file ${path} (${code ?? (error as Error).message})`,
        {
          hint:
            'name a file in a directory this user may write, ' +
            'or create the file yourself with openssl rand -base64 32',
        },
      );
    }
  }
  const key = await readSealingKey({ kind: 'file', path }, warn);
  if (!key)
    throw new RuntimeFailure('SEALING_KEY_UNWRITABLE', `the sealing key file ${path} vanished as it was created`, {
      hint: 'run the command again',
    });
  return key;
}

/** True when `path` is `directory` or lies under it. */
export function isInside(path: string, directory: string): boolean {
  const between = relative(resolve(directory), resolve(path));
  return between === '' || (!between.startsWith('..') && !isAbsolute(between));
}

/** Refuses a key file kept inside the directory whose contents it seals. */
export function refuseKeyBeside(source: SealingKeySource, directory: string, hint: string): void {
  if (source.kind === 'file' && isInside(source.path, directory)) {
    throw new InputError(
      'SEALING_KEY_BESIDE_STATE',
      `the sealing key file ${source.path} lies inside ${directory}, beside what it seals`,
      { hint },
    );
  }
}

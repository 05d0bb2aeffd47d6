/**
 * Where `portal controller start` (and `portal controller backup`, to say where the key is) finds the
 * key that seals the controller's TLS key and project CA keys, first match wins:
 *
 * 1. --sealing-key-file PATH;
 * 2. PORTAL_CONTROLLER_SEALING_KEY (the material itself) or PORTAL_CONTROLLER_SEALING_KEY_FILE (not both);
 * 3. the systemd credential `controller-seal.key` ($CREDENTIALS_DIRECTORY/controller-seal.key, which a
 *    unit's `LoadCredential=controller-seal.key:/etc/portal/controller-seal.key` provides);
 * 4. $PORTAL_HOME/keys/controller-seal.key, made on first start: on this machine, so the controller warns.
 */
import { join } from 'node:path';
import { InputError } from '../shared/errors.ts';
import {
  credentialFile,
  keysDirectory,
  sealingKeyFileNames,
  sealingKeyVariables,
  type SealingKeySource,
} from '../shared/sealing-key.ts';
import { portalHome } from './home.ts';

export interface ControllerSealingKey {
  readonly source: SealingKeySource;
  /** True when nobody named the key: the file under $PORTAL_HOME/keys, which the controller warns about. */
  readonly defaulted: boolean;
}

/** The name of the controller's sealing key as a systemd credential. */
export const controllerKeyCredential = sealingKeyFileNames.controller;

/**
 * The controller's sealing key source. Material read from the environment is removed from it, so
 * nothing this process starts inherits it.
 */
export function controllerSealingKey(flag: string | undefined, environment: NodeJS.ProcessEnv): ControllerSealingKey {
  const material = environment[sealingKeyVariables.controllerMaterial];
  const file = environment[sealingKeyVariables.controllerFile];
  delete environment[sealingKeyVariables.controllerMaterial];
  if (flag) return { source: { kind: 'file', path: flag }, defaulted: false };
  if (material && file) {
    throw new InputError(
      'BAD_ENVIRONMENT',
      `both ${sealingKeyVariables.controllerMaterial} and ${sealingKeyVariables.controllerFile} are set`,
      {
        hint: 'give the sealing key one way',
      },
    );
  }
  if (material)
    return { source: { kind: 'material', name: sealingKeyVariables.controllerMaterial, material }, defaulted: false };
  if (file) return { source: { kind: 'file', path: file }, defaulted: false };
  const credential = credentialFile(environment, controllerKeyCredential);
  if (credential) return { source: { kind: 'file', path: credential }, defaulted: false };
  return {
    source: { kind: 'file', path: join(keysDirectory(portalHome(environment)), sealingKeyFileNames.controller) },
    defaulted: true,
  };
}

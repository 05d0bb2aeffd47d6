/**
 * The controller's sealing key as backup and restore need it: present and readable, or one line that
 * says where it was looked for and how to give it.
 */
import { InputError } from '../shared/errors.ts';
import {
  describeSealingKey,
  readSealingKey,
  sealingKeyVariables,
  type SealingKeySource,
} from '../shared/sealing-key.ts';

const howToGiveKey =
  `give it with --sealing-key-file, ${sealingKeyVariables.controllerFile}, ` +
  `${sealingKeyVariables.controllerMaterial} or the systemd credential controller-seal.key`;

/** The key from `source`; refused when it does not exist, since nothing can `purpose` without it. */
export async function requiredSealingKey(source: SealingKeySource, purpose: string): Promise<Buffer> {
  const key = await readSealingKey(source);
  if (key) return key;
  throw new InputError(
    'SEALING_KEY_MISSING',
    `the sealing key ${describeSealingKey(source)} does not exist, and without it nothing can ${purpose}`,
    { hint: `use the key the controller runs with; ${howToGiveKey}` },
  );
}

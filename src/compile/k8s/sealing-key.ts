/**
 * The node's sealing key, kept apart from the state it seals: a copy of the state volume alone opens
 * nothing. The administrator creates the key's Secret once (see adminCommands); the node's container
 * never mounts it. An init container copies the key to a memory-backed volume of the pod, as a file of
 * the node's user with mode 0600, which the node container mounts read-only. The Secret itself cannot
 * serve: its files belong to root, so the node's user reads them only through a group bit, for which
 * the node warns at every start that other users may read its key. The copy lives as long as the pod,
 * never on a disk, like the stacks' copy in /run. Pure.
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import { podPaths, secretKeys } from './names.ts';
import { containerSecurityContext } from './security.ts';

export const keyVolumes = { secret: 'sealing-key-secret', copy: 'sealing-key' } as const;

/** Read by the group (the pod's fsGroup, the node's) and nobody else. */
const secretFileMode = 0o440;

/** `key`: the Secret's key and the copy's file name (a relay's or a controller's key is named otherwise). */
export function sealingKeyVolumes(secretName: string, key: string = secretKeys.sealingKey): IVolume[] {
  return [
    { name: keyVolumes.copy, emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
    {
      name: keyVolumes.secret,
      secret: {
        secretName,
        defaultMode: secretFileMode,
        items: [{ key, path: key }],
      },
    },
  ];
}

/** The node container's view of the key: the copy, read-only, apart from PORTAL_HOME. */
export const sealingKeyMount: IVolumeMount = { name: keyVolumes.copy, mountPath: podPaths.keys, readOnly: true };

/** `install` (coreutils, in the image's Debian base) copies and sets the mode in one step, with no shell. */
export function sealingKeyCopier(image: string, key: string = secretKeys.sealingKey): IContainer {
  return {
    name: 'sealing-key',
    image,
    imagePullPolicy: 'IfNotPresent',
    command: ['install', '-m', '0600', `${podPaths.keySecret}/${key}`, `${podPaths.keys}/${key}`],
    securityContext: containerSecurityContext,
    volumeMounts: [
      { name: keyVolumes.copy, mountPath: podPaths.keys },
      { name: keyVolumes.secret, mountPath: podPaths.keySecret, readOnly: true },
    ],
  };
}

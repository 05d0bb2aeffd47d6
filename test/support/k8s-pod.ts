/**
 * A pod of a compiled Deployment, run as the kubelet runs one, without Kubernetes: its volumes made as
 * the kubelet makes them (a ConfigMap's keys as files, a Secret's items with their mode and the pod's
 * fsGroup, an emptyDir, a claim's directory that outlives the pod), its init containers to the end,
 * then its container, each as the pod's user with its own mounts and the environment its `env` resolves
 * to. Paths of the container become the host directories of the volumes mounted there; programs run
 * from the image laid out by dockerfile.ts.
 */
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { Container } from './dockerfile.ts';
import { start, type Running } from './processes.ts';

const execFileAsync = promisify(execFile);

export interface ClusterObjects {
  /** ConfigMap name → data. */
  readonly configMaps: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Secret name → data (as the administrator's kubectl create secret made it). */
  readonly secrets: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Claim name → the directory of its volume, which outlives every pod. */
  readonly claims: ReadonlyMap<string, string>;
}

export interface Pod {
  /** The pod's volumes: name → host directory. */
  readonly volumes: Readonly<Record<string, string>>;
  /** A path of `container` as this host sees it. */
  translate(container: IContainer, path: string): string;
  /** The environment `container` starts with: the image's, then its own `env`, resolved. */
  environment(container: IContainer): Record<string, string>;
  /** Runs a command of `container` (a probe's, an init container's) to its end. */
  exec(container: IContainer, command: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts `container` as its image's entrypoint with its args. */
  start(container: IContainer): Running;
}

const asRoot = process.getuid?.() === 0;

export async function createPod(spec: IPodSpec, image: Container, cluster: ClusterObjects): Promise<Pod> {
  const dir = await mkdtemp(join(image.root, '..', 'pod-'));
  await chmod(dir, 0o755); // The pod's user goes through it to its volumes.
  const fsGroup = spec.securityContext?.fsGroup;
  const volumes: Record<string, string> = {};
  for (const volume of spec.volumes ?? []) {
    const path = join(dir, volume.name);
    if (volume.persistentVolumeClaim) {
      const claim = cluster.claims.get(volume.persistentVolumeClaim.claimName);
      if (!claim) throw new Error(`no claim ${volume.persistentVolumeClaim.claimName}`);
      volumes[volume.name] = claim;
      continue;
    }
    await mkdir(path, { mode: 0o755 });
    volumes[volume.name] = path;
    if (volume.emptyDir) {
      await chmod(path, 0o777);
      if (asRoot && fsGroup !== undefined) await chown(path, 0, fsGroup);
    } else if (volume.configMap || volume.secret) {
      const source = volume.configMap ?? volume.secret;
      const name = volume.configMap?.name ?? volume.secret?.secretName ?? '';
      const data = (volume.configMap ? cluster.configMaps : cluster.secrets).get(name);
      if (!data) throw new Error(`no ${volume.configMap ? 'ConfigMap' : 'Secret'} ${name}`);
      const items = source?.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) {
        const file = join(path, item.path);
        await writeFile(file, data[item.key] ?? '');
        await chmod(file, source?.defaultMode ?? 0o644);
        if (asRoot && fsGroup !== undefined) await chown(file, 0, fsGroup);
      }
    } else {
      throw new Error(`volume ${volume.name}: a kind this pod does not make`);
    }
  }
  const user = asRoot && spec.securityContext?.runAsUser !== undefined ? podUser(spec) : undefined;

  const translate = (container: IContainer, path: string): string => {
    const mounts = [...(container.volumeMounts ?? [])].sort((a, b) => b.mountPath.length - a.mountPath.length);
    for (const mount of mounts) {
      const host = volumes[mount.name];
      if (host && (path === mount.mountPath || path.startsWith(`${mount.mountPath}/`)))
        return host + path.slice(mount.mountPath.length);
    }
    return path;
  };

  const environment = (container: IContainer): Record<string, string> => {
    const variables: Record<string, string> = { ...image.env };
    for (const variable of container.env ?? []) {
      const secret = variable.valueFrom?.secretKeyRef;
      const map = variable.valueFrom?.configMapKeyRef;
      const value =
        variable.value ??
        (secret ? cluster.secrets.get(secret.name ?? '')?.[secret.key] : undefined) ??
        (map ? cluster.configMaps.get(map.name ?? '')?.[map.key] : undefined);
      if (value === undefined && !(secret?.optional ?? map?.optional))
        throw new Error(`${variable.name}: its source does not exist, and it is not optional`);
      if (value !== undefined) variables[variable.name] = translate(container, value);
    }
    return variables;
  };

  return {
    volumes,
    translate,
    environment,
    async exec(container, command) {
      const [program = '', ...args] = command;
      const [file, rest] =
        program === 'portal' ? image.commandLine(args) : [program === 'node' ? process.execPath : program, args];
      try {
        const { stdout, stderr } = await execFileAsync(
          file,
          rest.map((argument) => translate(container, argument)),
          { env: environment(container), cwd: image.volume, timeout: 20_000, ...user },
        );
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
    start(container) {
      const [program, args] = image.commandLine(
        (container.args ?? []).map((argument) => translate(container, argument)),
      );
      return start(program, args, {
        env: environment(container),
        isolated: true,
        cwd: image.volume,
        ...(user ? { user } : {}),
      });
    },
  };
}

function podUser(spec: IPodSpec): { uid: number; gid: number } {
  const uid = spec.securityContext?.runAsUser ?? 0;
  return { uid, gid: spec.securityContext?.runAsGroup ?? uid };
}
